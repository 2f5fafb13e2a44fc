/**
 * The one HTTPS client of the tests, the fault suite, the soak and the production rehearsal. It trusts
 * the test CA, so every request goes through real TLS, and it guards every answer twice:
 *   - the 5xx guard: a server error the request did not ask for (`expect5xx`);
 *   - the document check: an /api answer the API document does not describe (unless `offDocument`).
 * By default either one rejects the request, so a test fails at the line that sent it. A long run that
 * reports every problem of thousands of requests at its end (the soak, the rehearsal) gives the client a
 * `tally` instead: then nothing rejects, each request's outcome, with what the guards found, goes to the
 * tally, and a request that got no answer (refused, reset, timed out) returns status 0.
 */
import https from 'node:https';
import { documentProblems } from './api-document.js';

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, for malformed-body tests. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /**
   * Send the body with `Transfer-Encoding: chunked` (no Content-Length), in two writes, as Node's
   * http.request without a length, Go's client with a streaming body and `curl -T -` do.
   */
  chunked?: boolean;
  /** The client address to send from (another loopback address such as 127.0.0.2 is another client). */
  localAddress?: string;
  /** For a request that no client of the document would send (a malformed path, say). */
  offDocument?: boolean;
  /**
   * Only for a request that provokes a server-side failure on purpose (a dependency stopped, say), whose
   * answer the caller then judges itself. Without it any 5xx is a failure: the document lists 500 and
   * 503 for every authenticated operation, so the document check alone would let a crash pass.
   */
  expect5xx?: boolean;
  /**
   * The answers this request may get; any other rejects, or with a tally is reported as unaccepted.
   * Unless given, a test judges the answer itself, and a client with a tally accepts any 2xx.
   */
  accept?: Accept[];
}

export interface ClientOptions {
  /** Connect to this address whatever the origin's host name resolves to; TLS still checks that name. */
  connectTo?: string;
  /** Sockets open at once, at most (unlimited unless given). */
  maxSockets?: number;
  /** A request with no whole answer after this many milliseconds has none. */
  timeoutMs?: number;
  /** Report each request's outcome here instead of rejecting (above). */
  tally?: (outcome: Outcome) => void;
}

/** What a client with a tally reports of one request. */
export interface Outcome {
  method: string;
  path: string;
  /** The answer; status 0 when none came. */
  answer: HttpResponse;
  /** Why no answer came; null when one did. */
  noAnswer: string | null;
  /** The 5xx guard: the answer is a server error the request did not ask for. */
  serverError: boolean;
  /** The document check: how the answer differs from what the API document describes. */
  documentProblems: string[];
  /** An answer other than the request's `accept` (any 2xx unless given), and no server error. */
  unaccepted: boolean;
  /** The request's `accept`, to say what it expected. */
  accept: Accept[] | undefined;
}

/** An answer a caller accepts: a status, optionally with the error's type and message (or a pattern of it). */
export type Accept = number | { status: number; type?: string; message?: string | RegExp };

export function accepted(answer: { status: number; body?: any }, accept: Accept[]): boolean {
  return accept.some((a) => {
    if (typeof a === 'number') return a === answer.status;
    if (a.status !== answer.status) return false;
    const error = answer.body?.error;
    if (a.type && error?.type !== a.type) return false;
    if (a.message instanceof RegExp) return a.message.test(String(error?.message));
    return a.message === undefined || error?.message === a.message;
  });
}

const ANY_2XX: Accept[] = Array.from({ length: 100 }, (_, i) => 200 + i);

/** A request's `accept` in a message (a pattern as its source; "2xx" when none was given). */
export const acceptText = (accept: Accept[] | undefined) => JSON.stringify(accept ?? '2xx', (_, v) => (v instanceof RegExp ? String(v) : v));

function unexpected5xx(method: string, path: string, status: number, text: string): Error {
  return new Error(`${method} ${path} answered ${status}, a server error this test did not expect. Body: ${text.slice(0, 2_000)}`);
}

export type HttpClient = ReturnType<typeof createHttpClient>;

const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

export function createHttpClient(origin: string, ca: Buffer, opts: ClientOptions = {}) {
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: opts.maxSockets });
  const elsewhere = opts.connectTo ? { hostname: opts.connectTo, servername: new URL(origin).hostname } : {};

  /**
   * Node's documented pattern for keep-alive: a request on a reused socket that is reset before any answer
   * is sent once more on a new one. The server closed that socket while idle (after its keep-alive timeout)
   * and this process, busy, had not yet read the close; the server never read the request. A client with a
   * tally (the soak, the rehearsal) is not retried: it kills servers, and a reset there is an answer it counts.
   */
  async function send(method: string, path: string, req: RequestOptions): Promise<HttpResponse> {
    try {
      return await sendOnce(method, path, req);
    } catch (err) {
      const stale = (err as { staleSocket?: boolean }).staleSocket;
      if (!stale || opts.tally) throw err;
      return sendOnce(method, path, req);
    }
  }

  function sendOnce(method: string, path: string, req: RequestOptions): Promise<HttpResponse> {
    const payload = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.key) headers.Authorization = `Bearer ${req.key}`;
    if (payload !== undefined && req.rawBody === undefined) headers['Content-Type'] ??= 'application/json';
    if (payload !== undefined && !req.chunked) headers['Content-Length'] = String(Buffer.byteLength(payload));
    return new Promise((resolve, reject) => {
      const options = { method, headers, agent, localAddress: req.localAddress, timeout: opts.timeoutMs, ...elsewhere };
      let answered = false;
      const request = https.request(new URL(path, origin), options, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: the page tests read `text` */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      });
      request.on('timeout', () => request.destroy(new Error(`no answer in ${opts.timeoutMs! / 1000} s`)));
      request.on('error', (err: NodeJS.ErrnoException) =>
        reject(Object.assign(err, { staleSocket: request.reusedSocket && !answered && STALE_SOCKET_ERRORS.has(err.code ?? '') })),
      );
      if (payload !== undefined && req.chunked) {
        const bytes = Buffer.from(payload);
        const half = Math.ceil(bytes.length / 2);
        request.write(bytes.subarray(0, half));
        request.end(bytes.subarray(half));
      } else {
        if (payload !== undefined) request.write(payload);
        request.end();
      }
    });
  }

  async function request<T = any>(method: string, path: string, req: RequestOptions = {}): Promise<HttpResponse<T>> {
    let answer: HttpResponse;
    try {
      answer = await send(method, path, req);
    } catch (err) {
      if (!opts.tally) throw err;
      const none: HttpResponse = { status: 0, headers: {}, body: undefined, text: '' };
      opts.tally({ method, path, answer: none, noAnswer: (err as Error).message, serverError: false, documentProblems: [], unaccepted: false, accept: req.accept });
      return none;
    }
    const serverError = answer.status >= 500 && !req.expect5xx;
    // Every /api answer must be one the API document describes: the no-drift check.
    const problems = req.offDocument ? [] : documentProblems(method, path, answer);
    if (opts.tally) {
      const unaccepted = !serverError && !accepted(answer, req.accept ?? ANY_2XX);
      opts.tally({ method, path, answer, noAnswer: null, serverError, documentProblems: problems, unaccepted, accept: req.accept });
    } else if (serverError) throw unexpected5xx(method, path, answer.status, answer.text);
    else if (problems.length) throw new Error(`The answer breaks the API document:\n${problems.join('\n')}`);
    else if (req.accept && !accepted(answer, req.accept)) throw new Error(`${method} ${path} answered ${answer.status}, not ${acceptText(req.accept)}: ${answer.text.slice(0, 2_000)}`);
    return answer;
  }

  return {
    request,
    get: <T = any>(path: string, req?: RequestOptions) => request<T>('GET', path, req),
    post: <T = any>(path: string, body?: unknown, req?: RequestOptions) => request<T>('POST', path, { ...req, body }),
    put: <T = any>(path: string, body?: unknown, req?: RequestOptions) => request<T>('PUT', path, { ...req, body }),
    patch: <T = any>(path: string, body?: unknown, req?: RequestOptions) => request<T>('PATCH', path, { ...req, body }),
    delete: <T = any>(path: string, req?: RequestOptions) => request<T>('DELETE', path, req),
    close: () => agent.destroy(),
  };
}
