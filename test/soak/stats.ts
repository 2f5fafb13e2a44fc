/**
 * The soak's tally. Its clients are the one test client (test/support/http.ts) reporting here instead of
 * throwing: every answer counted by status, and the details of each 5xx, of each answer the flow did not
 * accept and of each /api answer the API document does not describe (the first 50 of each, with the
 * request id, to find the API process's log line later). They connect to 127.0.0.1 only, whatever the
 * origin says, presenting `localhost` for TLS.
 */
import { acceptText, createHttpClient, type HttpClient, type Outcome } from '../support/http.js';

/** A problem, of one answer or of a flow (not tied to one answer, e.g. two refunds created for one session). */
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

  /** One request's outcome, on API process `api`. */
  record(api: string, o: Outcome): void {
    if (o.noAnswer !== null) {
      this.transportErrors++;
      return this.problem('no answer (connection failed or timed out)', { api, method: o.method, path: o.path });
    }
    this.requests++;
    this.byStatus.set(o.answer.status, (this.byStatus.get(o.answer.status) ?? 0) + 1);
    const failure = (why: string): Failure => ({
      api,
      method: o.method,
      path: o.path.length > 200 ? `${o.path.slice(0, 200)}…` : o.path,
      status: o.answer.status,
      requestId: (o.answer.headers['x-request-id'] as string | undefined) ?? null,
      answer: o.answer.text.slice(0, 500),
      why,
    });
    if (o.serverError) {
      this.serverErrorCount++;
      if (this.serverErrors.length < KEEP) this.serverErrors.push(failure('5xx'));
    } else if (o.unaccepted) {
      this.unexpectedCount++;
      if (this.unexpected.length < KEEP) this.unexpected.push(failure(`expected ${acceptText(o.accept)}`));
    }
    for (const p of o.documentProblems) {
      this.documentProblemCount++;
      if (this.documentProblems.length < KEEP) this.documentProblems.push(`${api}: ${p}`);
    }
  }

  problem(why: string, detail: Partial<Failure> = {}): void {
    this.unexpectedCount++;
    if (this.unexpected.length < KEEP) this.unexpected.push({ api: '', method: '', path: '', status: 0, requestId: null, answer: '', ...detail, why });
  }

  histogram(): Record<string, number> {
    return Object.fromEntries([...this.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => [String(s), n]));
  }
}

export type SoakClient = HttpClient & { name: string; origin: string };

export function soakClient(name: string, origin: string, ca: Buffer, stats: Stats): SoakClient {
  if (!['localhost', '127.0.0.1'].includes(new URL(origin).hostname)) throw new Error(`the soak targets this machine only, not ${origin}`);
  const client = createHttpClient(origin, ca, { connectTo: '127.0.0.1', maxSockets: 64, timeoutMs: 60_000, tally: (o) => stats.record(name, o) });
  return { ...client, name, origin };
}
