/**
 * Latency of one operation on two businesses, one request at a time so each figure is the request's own
 * cost, not a queue's: warmed up first, then the two businesses alternately (A then B, then B then A), so
 * whatever else the machine does lands on both alike.
 */
import { percentile } from '../open-loop.js';

export interface Measured {
  /** Samples taken, per business (fewer than asked when the operation's time budget ran out). */
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface OperationResult {
  name: string;
  kind: 'read' | 'write';
  a: Measured;
  b: Measured;
  /** What the first measured answer of each said (its `meta` or `pagination`, its item count), to show what was read. */
  answers?: { a: unknown; b: unknown };
}

export interface MeasureOptions<B> {
  samples: number;
  warmup: number;
  /** Stops sampling an operation after this long (at least 10 samples each are taken). */
  maxSeconds: number;
  /** Runs after each call, untimed: what the next call needs put back (say, the deliveries a recovery re-sent). */
  after?: (business: B) => Promise<void>;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const summary = (ms: number[]): Measured => ({ n: ms.length, p50: round1(percentile(ms, 50)), p99: round1(percentile(ms, 99)), max: round1(Math.max(...ms)) });

/**
 * Times `call(business, i)` `samples` times for each of `a` and `b`. The call makes one request and
 * throws unless it was answered as it should be; what it returns for its first measured call is kept.
 */
export async function measure<B>(
  name: string,
  kind: 'read' | 'write',
  [a, b]: [B, B],
  call: (business: B, i: number) => Promise<unknown>,
  o: MeasureOptions<B>,
): Promise<OperationResult> {
  for (let i = 0; i < o.warmup; i++) {
    for (const business of [a, b]) {
      await call(business, i);
      await o.after?.(business);
    }
  }
  const times: [number[], number[]] = [[], []];
  const answers: unknown[] = [undefined, undefined];
  const deadline = performance.now() + o.maxSeconds * 1000;
  for (let i = 0; i < o.samples; i++) {
    if (i >= 10 && performance.now() > deadline) break;
    for (const side of i % 2 ? [1, 0] : [0, 1]) {
      const t0 = performance.now();
      const answer = await call(side ? b : a, o.warmup + i);
      times[side].push(performance.now() - t0);
      if (i === 0) answers[side] = answer;
      await o.after?.(side ? b : a);
    }
  }
  const result = { name, kind, a: summary(times[0]), b: summary(times[1]) };
  process.stderr.write(
    `history: ${name}: A p50 ${result.a.p50} p99 ${result.a.p99} ms; B p50 ${result.b.p50} p99 ${result.b.p99} ms (${result.a.n} samples each)\n`,
  );
  return answers[0] === undefined ? result : { ...result, answers: { a: answers[0], b: answers[1] } };
}
