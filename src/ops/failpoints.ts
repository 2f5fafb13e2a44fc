/**
 * Test-only pause points at the step boundaries of the paths that move money, as etcd's gofail and
 * TiKV's fail-rs give theirs. The fault suite arms a point for one record, waits until a process has
 * stopped there, injects its fault (a Temporal or PostgreSQL restart, a SIGKILL) at exactly that moment,
 * and then lets the process go on: the cases that load and luck reach only sometimes, every time.
 *
 * Off unless FAILPOINTS=true, which only NODE_ENV=test accepts (src/config.ts): a production process
 * never pauses, and `failpoint()` is then a single boolean test. The points are driven over the ops port,
 * where such a process mounts `serveFailpoints` at `FAILPOINTS_PATH` behind ADMIN_TOKEN (src/main/ops-port.ts),
 * never over the API's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Each point names where it stops, and is keyed by what the test knows before it sends the request: a
 * payment and a refund by the checkout session's id, a withdrawal by its business's id.
 */
export const FAILPOINTS = [
  /** API: the pay call's Temporal update has not left the process (to the server: not admitted). */
  'pay.before-update',
  /** Worker: the update is admitted and its workflow task runs, but it is not accepted and nothing is written. */
  'pay.before-begin',
  /** Worker: beginPayment has committed pending → processing; its workflow task has not completed. */
  'pay.after-begin',
  /** Worker: the processor charged the card; Temporal has not heard it, completePayment has not run. */
  'pay.after-charge',
  /** API: the payment is recorded and the update answered; the pay call has not answered yet. */
  'pay.before-answer',
  /** API: the refund and its workflow start (an outbox row) committed; the start has not been sent. */
  'refund.after-create',
  /** Worker: pending → processing committed; its workflow task has not completed. */
  'refund.after-processing',
  /** Worker: the processor refunded; Temporal has not heard it, completeRefund has not run. */
  'refund.after-processor',
  /** API: the withdrawal and its workflow start committed; the start has not been sent. */
  'withdrawal.after-create',
  /** Worker: pending → processing committed; its workflow task has not completed. */
  'withdrawal.after-processing',
  /** Worker: the processor paid out; Temporal has not heard it, completeWithdrawal has not run. */
  'withdrawal.after-payout',
] as const;
export type FailpointName = (typeof FAILPOINTS)[number];

interface ArmedPoint {
  /** Callers stopped there now. */
  waiting: number;
  /** Callers that have reached it since it was armed. */
  reached: number;
  release: () => void;
  released: Promise<void>;
}

let enabled = false;
const armed = new Map<string, ArmedPoint>();
const idOf = (name: string, key: string) => `${name}/${key}`;

/** Called once at start by a process whose configuration has FAILPOINTS=true. */
export function enableFailpoints(): void {
  enabled = true;
}

/**
 * Stops here while the point is armed for `key`, until it is released. Every caller that arrives in the
 * meantime stops too (an activity retried while its first try is held).
 */
export async function failpoint(name: FailpointName, key: string): Promise<void> {
  if (!enabled) return;
  const point = armed.get(idOf(name, key));
  if (!point) return;
  point.reached++;
  point.waiting++;
  try {
    await point.released;
  } finally {
    point.waiting--;
  }
}

/** Arms the point for `key` (a test's in-process stack arms it directly; processes over their ops port). */
export function armFailpoint(name: FailpointName, key: string): void {
  if (armed.has(idOf(name, key))) return;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  armed.set(idOf(name, key), { waiting: 0, reached: 0, release, released });
}

/** Lets every caller stopped at the point go on, and disarms it. */
export function releaseFailpoint(name: FailpointName, key: string): boolean {
  const point = armed.get(idOf(name, key));
  if (!point) return false;
  armed.delete(idOf(name, key));
  point.release();
  return true;
}

/** Where the ops port mounts the failpoints. */
export const FAILPOINTS_PATH = '/failpoints';

/**
 * The ops port's `/failpoints`, mounted only where they are enabled: `PUT /failpoints/<name>/<key>` arms,
 * `DELETE` releases, `GET /failpoints` lists the armed points with how many callers reached and wait at each.
 */
export function serveFailpoints(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  if (path === FAILPOINTS_PATH && req.method === 'GET') {
    send(200, [...armed].map(([id, p]) => ({ id, reached: p.reached, waiting: p.waiting })));
    return;
  }
  const parts = decodedSegments(path);
  // A segment that is not valid percent-encoding is the caller's mistake, not the process's end.
  if (!parts) {
    send(400, { status: 'bad_request', error: 'the path is not valid percent-encoding' });
    return;
  }
  const [, , name, key] = parts;
  if (!(FAILPOINTS as readonly string[]).includes(name) || !key) {
    send(404, { status: 'not_found', failpoints: FAILPOINTS });
    return;
  }
  if (req.method === 'PUT') {
    armFailpoint(name as FailpointName, key);
    send(200, { armed: idOf(name, key) });
  } else if (req.method === 'DELETE') {
    send(releaseFailpoint(name as FailpointName, key) ? 200 : 404, { released: idOf(name, key) });
  } else {
    send(405, { status: 'method_not_allowed' });
  }
}

function decodedSegments(path: string): string[] | null {
  try {
    return path.split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** How many callers wait at the point for `key` now (0 when it is not armed). */
export function failpointWaiting(name: FailpointName, key: string): number {
  return armed.get(idOf(name, key))?.waiting ?? 0;
}
