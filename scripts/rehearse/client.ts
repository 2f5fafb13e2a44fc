/**
 * The rehearsal's API client, as a careful merchant writes one: every POST carries an Idempotency-Key,
 * and a request that gets a documented retryable answer is sent again, unchanged, with the same key:
 *   - 503 service_unavailable (from an API, or from the proxy when no API is ready);
 *   - 409 idempotency_error "A request with this Idempotency-Key is in progress";
 *   - no answer at all (a connection refused, reset or timed out).
 * Anything else is the request's outcome. It counts every answer by status and every retry by reason.
 */
import { randomUUID } from 'node:crypto';
import https from 'node:https';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

/** An outcome the caller accepts: a status, optionally with the error's type and message. */
export type Accept = number | { status: number; type?: string; message?: string | RegExp };

export class Stats {
  /** Logical requests (a request and its retries count once). */
  requests = 0;
  /** HTTP answers, retries included, by status (0: no answer). */
  readonly byStatus = new Map<number, number>();
  readonly retries = new Map<string, number>();
  /** Requests that ended in an answer nobody documented, or that gave up retrying. */
  readonly failures: string[] = [];
  /** Requests retried at least once whose retry then succeeded. */
  retriedThenSucceeded = 0;

  answered(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
  retried(reason: string): void {
    this.retries.set(reason, (this.retries.get(reason) ?? 0) + 1);
  }
  fail(why: string): void {
    this.failures.push(why);
  }
}

/** The retryable answers this client knows, by reason; null: not retryable. */
export function retryReason(a: Answer): string | null {
  if (a.status === 0) return 'no answer (connection error)';
  if (a.status === 503 && a.body?.error?.type === 'service_unavailable') return '503 service_unavailable';
  if (a.status === 409 && a.body?.error?.type === 'idempotency_error' && /in progress/.test(String(a.body?.error?.message))) return '409 in progress';
  return null;
}

export function accepted(a: Answer, accept: Accept[]): boolean {
  return accept.some((x) => {
    if (typeof x === 'number') return x === a.status;
    if (x.status !== a.status) return false;
    const e = a.body?.error;
    if (x.type && e?.type !== x.type) return false;
    if (x.message instanceof RegExp) return x.message.test(String(e?.message));
    return x.message === undefined || e?.message === x.message;
  });
}

export interface Sent extends Answer {
  attempts: number;
}

export function createClient(origin: string, ca: Buffer, stats: Stats, giveUpMs = 120_000) {
  const { port } = new URL(origin);
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 32 });

  function once(method: string, path: string, headers: Record<string, string>, payload?: string): Promise<Answer> {
    return new Promise((resolve) => {
      const req = https.request({ host: '127.0.0.1', servername: 'localhost', port, path, method, headers, agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => resolve({ status: 0, body: undefined, text: '' }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, text });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve({ status: 0, body: undefined, text: '' }));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /**
   * Sends until the answer is not retryable, then checks it against `accept` (default: any 2xx). The
   * answer is returned either way; a failure is recorded in `stats` with what was asked and answered.
   */
  async function send(method: string, path: string, opts: { key?: string; body?: unknown; accept?: Accept[] } = {}): Promise<Sent> {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = {};
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (method === 'POST') headers['Idempotency-Key'] = randomUUID();
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    stats.requests++;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const answer = await once(method, path, headers, payload);
      stats.answered(answer.status);
      const reason = retryReason(answer);
      if (reason && Date.now() - started < giveUpMs) {
        stats.retried(reason);
        await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * attempt)));
        continue;
      }
      const ok = accepted(answer, opts.accept ?? [200, 201]);
      if (!ok) {
        const why = reason ? `still "${reason}" after ${giveUpMs / 1000} s of retries` : `answered ${answer.status} ${answer.text.slice(0, 300)}`;
        stats.fail(`${method} ${path} (attempt ${attempt}, key ${headers['Idempotency-Key'] ?? '-'}): ${why}`);
      } else if (attempt > 1) stats.retriedThenSucceeded++;
      return { ...answer, attempts: attempt };
    }
  }

  return {
    send,
    get: (path: string, key?: string, accept?: Accept[]) => send('GET', path, { key, accept }),
    post: (path: string, body: unknown, key?: string, accept?: Accept[]) => send('POST', path, { key, body, accept }),
    close: () => agent.destroy(),
  };
}

export type Client = ReturnType<typeof createClient>;
