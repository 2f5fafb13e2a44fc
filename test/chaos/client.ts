/**
 * The chaos run's clients and the history they write. A request goes to one API process; it is sent
 * again (the same body, the same Idempotency-Key, to the other API) only on a 503 with Retry-After or
 * when no answer came (the connection refused or cut: that API was killed), after Retry-After (or a
 * second), for at most RETRY_FOR_MS. Every send is kept in the history with its time, API, status and
 * request id, for the checks and for the evidence of any breach.
 */
import { readFileSync } from 'node:fs';
import { createHttpClient, type HttpClient, type Outcome } from '../support/http.js';

export const RETRY_FOR_MS = 90_000;

export interface Call {
  /** Milliseconds since the load started. */
  at: number;
  ms: number;
  api: number;
  method: string;
  path: string;
  /** 0: no answer (`error` says why). */
  status: number;
  error?: string;
  requestId?: string;
  retryAfter?: string;
  /** The answer's `data` or `error`, as sent. */
  body?: any;
}

export interface History {
  started: number;
  calls: Call[];
  /** Answers the API document does not describe. */
  documentProblems: string[];
}

export const describeCall = (c: Call) =>
  `+${(c.at / 1000).toFixed(1)} s ${c.method} ${c.path} on api-${c.api + 1} -> ${c.status || `no answer (${c.error})`} after ${(c.ms / 1000).toFixed(1)} s` +
  `${c.requestId ? ` [${c.requestId}]` : ''}${c.status >= 400 || c.body?.status ? ` ${JSON.stringify(c.body?.status ?? c.body?.message ?? c.body).slice(0, 160)}` : ''}`;

export interface Send {
  key?: string;
  body?: unknown;
  idempotencyKey?: string;
  /** The API to send to first (the other one on each retry). */
  api: number;
  /** At least this long between a 503 and the retry (a pay counts against the session's 10 a minute). */
  minWaitMs?: number;
  /** Whether to retry (false: a reader that moves on). */
  retry?: boolean;
}

export interface ChaosClients {
  history: History;
  /** Sends until an answer other than a retryable one comes, or the retries run out; every send's call. */
  send: (method: string, path: string, opts: Send) => Promise<Call[]>;
  close: () => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function chaosClients(origins: string[]): ChaosClients {
  const ca = readFileSync(process.env.TEST_TLS_CA!);
  const history: History = { started: Date.now(), calls: [], documentProblems: [] };
  const tally = (o: Outcome) => {
    if (o.documentProblems.length && history.documentProblems.length < 50) history.documentProblems.push(...o.documentProblems.map((p) => `${o.method} ${o.path}: ${p}`));
  };
  const clients: HttpClient[] = origins.map((origin) => createHttpClient(origin, ca, { connectTo: '127.0.0.1', timeoutMs: 60_000, maxSockets: 64, tally }));

  async function once(method: string, path: string, opts: Send, api: number): Promise<Call> {
    const started = Date.now();
    const headers: Record<string, string> = opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : {};
    const call: Call = { at: started - history.started, ms: 0, api, method, path, status: 0 };
    try {
      const res = await clients[api].request(method, path, { key: opts.key, body: opts.body, headers, expect5xx: true, accept: [] });
      call.status = res.status;
      if (!res.status) call.error = 'connection failed or timed out';
      call.requestId = res.headers['x-request-id'] as string | undefined;
      call.retryAfter = res.headers['retry-after'] as string | undefined;
      call.body = res.body?.data ?? res.body?.error ?? (typeof res.body === 'string' ? res.body.slice(0, 200) : res.body);
    } catch (err) {
      call.error = (err as Error).message;
    }
    call.ms = Date.now() - started;
    history.calls.push(call);
    return call;
  }

  return {
    history,
    async send(method, path, opts) {
      const calls: Call[] = [];
      const until = Date.now() + RETRY_FOR_MS;
      for (let api = opts.api; ; api = 1 - api) {
        const call = await once(method, path, opts, api);
        calls.push(call);
        const retryable = (call.status === 503 && call.retryAfter !== undefined) || call.status === 0;
        if (!retryable || opts.retry === false || Date.now() > until) return calls;
        await sleep(Math.max(Number(call.retryAfter ?? 1) * 1000, opts.minWaitMs ?? 0));
      }
    },
    close: () => clients.forEach((c) => c.close()),
  };
}
