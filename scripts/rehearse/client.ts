/**
 * The rehearsal's API client, as a careful merchant writes one: every POST carries an Idempotency-Key,
 * and a request that gets a documented retryable answer is sent again, unchanged, with the same key:
 *   - 503 service_unavailable (from an API, or from the proxy when no API is ready);
 *   - 409 idempotency_error "A request with this Idempotency-Key is in progress";
 *   - no answer at all (a connection refused, reset or timed out).
 * Anything else is the request's outcome. It counts every answer by status and every retry by reason.
 * Each try is a request of the one test client (test/support/http.ts) with a tally, so every answer an
 * API gave is also checked against the API document.
 */
import { randomUUID } from 'node:crypto';
import { accepted, createHttpClient, type Accept, type HttpResponse, type Outcome } from '../../test/support/http.js';

export class Stats {
  /** Logical requests (a request and its retries count once). */
  requests = 0;
  /** HTTP answers, retries included, by status (0: no answer). */
  readonly byStatus = new Map<number, number>();
  readonly retries = new Map<string, number>();
  /** Requests that ended in an answer nobody documented, or that gave up retrying; answers the API document does not describe. */
  readonly failures: string[] = [];
  /** Requests retried at least once whose retry then succeeded. */
  retriedThenSucceeded = 0;
  /** Requests sent and not yet answered for good: a fault's snapshot of them is its writes in flight. */
  readonly open = new Set<Ticket>();

  /** One try's outcome, as the client reports it. */
  record(o: Outcome): void {
    this.byStatus.set(o.answer.status, (this.byStatus.get(o.answer.status) ?? 0) + 1);
    for (const p of o.documentProblems) this.fail(`${o.method} ${o.path}: the answer breaks the API document: ${p}`);
  }
  retried(reason: string): void {
    this.retries.set(reason, (this.retries.get(reason) ?? 0) + 1);
  }
  fail(why: string): void {
    this.failures.push(why);
  }
}

/** The retryable answers this client knows, by reason; null: not retryable. */
export function retryReason(a: HttpResponse): string | null {
  if (a.status === 0) return 'no answer (connection error)';
  if (a.status === 503 && a.body?.error?.type === 'service_unavailable') return '503 service_unavailable';
  if (a.status === 409 && a.body?.error?.type === 'idempotency_error' && /in progress/.test(String(a.body?.error?.message))) return '409 in progress';
  return null;
}

/** One logical request; `outcome` is set when it ends (its last answer, and how many tries). */
export interface Ticket {
  what: string;
  outcome?: string;
}

export interface Sent extends HttpResponse {
  attempts: number;
}

export function createClient(origin: string, ca: Buffer, stats: Stats, giveUpMs = 120_000) {
  const http = createHttpClient(origin, ca, { connectTo: '127.0.0.1', maxSockets: 32, timeoutMs: 30_000, tally: (o) => stats.record(o) });

  /**
   * Sends until the answer is not retryable, then checks it against `accept` (default: 200 or 201). The
   * answer is returned either way; a failure is recorded in `stats` with what was asked and answered.
   */
  async function send(method: string, path: string, opts: { key?: string; body?: unknown; accept?: Accept[] } = {}): Promise<Sent> {
    const headers: Record<string, string> = {};
    if (method === 'POST') headers['Idempotency-Key'] = randomUUID();
    stats.requests++;
    const ticket: Ticket = { what: `${method} ${path}` };
    stats.open.add(ticket);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      // The restarts make 503s on purpose: this loop retries the documented one, and `accept` fails any other.
      const answer = await http.request(method, path, { key: opts.key, body: opts.body, headers, expect5xx: true });
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
      ticket.outcome = `${answer.status}${attempt > 1 ? ` after ${attempt} tries` : ''}`;
      stats.open.delete(ticket);
      return { ...answer, attempts: attempt };
    }
  }

  return {
    send,
    get: (path: string, key?: string, accept?: Accept[]) => send('GET', path, { key, accept }),
    post: (path: string, body: unknown, key?: string, accept?: Accept[]) => send('POST', path, { key, body, accept }),
    close: () => http.close(),
  };
}

export type Client = ReturnType<typeof createClient>;
