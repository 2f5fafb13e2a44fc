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
  /** For a test that sends what no client of the document would (a malformed path, say). */
  offDocument?: boolean;
  /**
   * Only for a test that provokes a server-side failure on purpose (a dependency stopped, say) and then
   * asserts the exact answer. Without it any 5xx rejects: the document lists 500 and 503 for every
   * authenticated operation, so the document check alone would let a crash pass as a documented answer.
   */
  expect5xx?: boolean;
}

/** The error a test sees when the service answers 5xx to a request that did not ask for one. */
export function unexpected5xx(method: string, path: string, status: number, text: string): Error {
  return new Error(`${method} ${path} answered ${status}, a server error this test did not expect. Body: ${text.slice(0, 2_000)}`);
}

export type HttpClient = ReturnType<typeof createHttpClient>;

/** A small HTTPS client that trusts the test CA, so tests exercise real TLS. */
export function createHttpClient(origin: string, ca: Buffer) {
  const agent = new https.Agent({ ca, keepAlive: true });
  function request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (payload !== undefined && opts.rawBody === undefined) headers['Content-Type'] ??= 'application/json';
    if (payload !== undefined && !opts.chunked) headers['Content-Length'] = String(Buffer.byteLength(payload));
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, origin), { method, headers, agent, localAddress: opts.localAddress }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: the page tests read `text` */
          }
          const answer = { status: res.statusCode ?? 0, headers: res.headers, body, text };
          if (answer.status >= 500 && !opts.expect5xx) return reject(unexpected5xx(method, path, answer.status, text));
          // Every /api answer must be one the API document describes: the no-drift check.
          const problems = opts.offDocument ? [] : documentProblems(method, path, answer);
          if (problems.length) reject(new Error(`The answer breaks the API document:\n${problems.join('\n')}`));
          else resolve(answer);
        });
      });
      req.on('error', reject);
      if (payload !== undefined && opts.chunked) {
        const bytes = Buffer.from(payload);
        const half = Math.ceil(bytes.length / 2);
        req.write(bytes.subarray(0, half));
        req.end(bytes.subarray(half));
      } else {
        if (payload !== undefined) req.write(payload);
        req.end();
      }
    });
  }
  return {
    request,
    get: <T = any>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
    post: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
    put: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
    patch: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PATCH', path, { ...opts, body }),
    delete: <T = any>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
    close: () => agent.destroy(),
  };
}
