/**
 * The soak's HTTPS client. Unlike the test client it never throws on an answer: it counts every answer
 * by status, keeps the details of each 5xx and of each answer the caller did not accept (with the
 * request id, to find the API process's log line later), and checks /api answers against the API
 * document. It connects to 127.0.0.1 only, whatever the origin says, presenting `localhost` for TLS.
 */
import https from 'node:https';
import { documentProblems } from '../support/api-document.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** An accepted answer: a status, optionally with the error's type and message. */
export type Accept = number | { status: number; type?: string; message?: string | RegExp };

export interface Failure {
  api: string;
  method: string;
  path: string;
  status: number;
  requestId: string | null;
  answer: string;
  why: string;
}

const KEEP = 50;

export class Stats {
  requests = 0;
  readonly byStatus = new Map<number, number>();
  readonly serverErrors: Failure[] = [];
  readonly unexpected: Failure[] = [];
  readonly documentProblems: string[] = [];
  serverErrorCount = 0;
  unexpectedCount = 0;
  documentProblemCount = 0;
  transportErrors = 0;

  count(status: number): void {
    this.requests++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
  /** A problem found by a flow (not tied to one answer), e.g. two refunds created for one session. */
  problem(why: string, detail: Partial<Failure> = {}): void {
    this.unexpectedCount++;
    if (this.unexpected.length < KEEP) this.unexpected.push({ api: '', method: '', path: '', status: 0, requestId: null, answer: '', ...detail, why });
  }
  histogram(): Record<string, number> {
    return Object.fromEntries([...this.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => [String(s), n]));
  }
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (malformed-body requests). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** The answers this request may get; anything else is recorded as unexpected. Default: any 2xx. */
  accept?: Accept[];
  /** Skip the API-document check (a path no client of the document would send). */
  offDocument?: boolean;
}

export type SoakClient = ReturnType<typeof soakClient>;

function accepted(answer: Answer, accept: Accept[] | undefined): boolean {
  if (!accept) return answer.status >= 200 && answer.status < 300;
  return accept.some((a) => {
    if (typeof a === 'number') return a === answer.status;
    if (a.status !== answer.status) return false;
    const error = answer.body?.error;
    if (a.type && error?.type !== a.type) return false;
    if (a.message instanceof RegExp) return a.message.test(String(error?.message));
    return a.message === undefined || error?.message === a.message;
  });
}

export function soakClient(name: string, origin: string, ca: Buffer, stats: Stats) {
  const { port, hostname } = new URL(origin);
  if (!['localhost', '127.0.0.1'].includes(hostname)) throw new Error(`the soak targets this machine only, not ${origin}`);
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 64 });

  function send(method: string, path: string, opts: RequestOptions): Promise<Answer | null> {
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (payload !== undefined && opts.rawBody === undefined) headers['Content-Type'] ??= 'application/json';
    if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
    return new Promise((resolve) => {
      const req = https.request({ host: '127.0.0.1', servername: 'localhost', port, path, method, headers, agent, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => resolve(null));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            /* an HTML page or a plain redirect */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 60 s')));
      req.on('error', () => resolve(null));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<Answer> {
    const answer = await send(method, path, opts);
    if (!answer) {
      stats.transportErrors++;
      stats.problem('no answer (connection failed or timed out)', { api: name, method, path });
      return { status: 0, headers: {}, body: undefined, text: '' };
    }
    stats.count(answer.status);
    const failure = (why: string): Failure => ({
      api: name,
      method,
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
      status: answer.status,
      requestId: (answer.headers['x-request-id'] as string | undefined) ?? null,
      answer: answer.text.slice(0, 500),
      why,
    });
    if (answer.status >= 500) {
      stats.serverErrorCount++;
      if (stats.serverErrors.length < KEEP) stats.serverErrors.push(failure('5xx'));
    } else if (!accepted(answer, opts.accept)) {
      stats.unexpectedCount++;
      if (stats.unexpected.length < KEEP) stats.unexpected.push(failure(`expected ${JSON.stringify(opts.accept ?? '2xx', (_, v) => (v instanceof RegExp ? String(v) : v))}`));
    }
    if (!opts.offDocument) {
      for (const p of documentProblems(method, path, answer)) {
        stats.documentProblemCount++;
        if (stats.documentProblems.length < KEEP) stats.documentProblems.push(`${name}: ${p}`);
      }
    }
    return answer;
  }

  return {
    name,
    origin,
    request,
    get: (path: string, opts?: RequestOptions) => request('GET', path, opts),
    post: (path: string, body?: unknown, opts?: RequestOptions) => request('POST', path, { ...opts, body }),
    put: (path: string, body?: unknown, opts?: RequestOptions) => request('PUT', path, { ...opts, body }),
    patch: (path: string, body?: unknown, opts?: RequestOptions) => request('PATCH', path, { ...opts, body }),
    delete: (path: string, opts?: RequestOptions) => request('DELETE', path, opts),
    close: () => agent.destroy(),
  };
}
