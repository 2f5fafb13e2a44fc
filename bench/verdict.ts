/**
 * How a bench goal is judged, apart from which goals there are (bench/targets.ts). A goal is `met` or
 * `missed` only on figures that were truly measured: a figure that is missing, not a number, zero where
 * no measurement gives zero, or timed on fewer requests than were offered leaves it `not measured`, and
 * the row says why. A bench that called a goal met on a round where every request failed (its p99 was
 * the 0 of an empty list, its ratio 0) told the reader the opposite of what happened.
 */
export type Verdict = 'met' | 'missed' | 'not measured';
export type Bound = 'atLeast' | 'atMost';

/** One round's pair; a round that gave no ratio keeps `null` there and says why. */
export interface Round {
  measured: number | null;
  reference: number | null;
  ratio: number | null;
  why?: string;
}

/** How many requests a latency's sample set was offered and how many it timed (answered 2xx), round by round. */
export interface Counts {
  offered: number[] | undefined;
  timed: number[] | undefined;
}

/**
 * A latency's samples must hold at least this share of what was offered. A request that never answered
 * is slower than any that did, so a p99 over the answered ones alone is the offered requests' p99 only
 * while fewer than 1% are missing; past that the missing ones are the tail.
 */
export const MIN_TIMED_SHARE = 0.99;

const round2 = (x: number) => Math.round(x * 100) / 100;
const count = (n: number) => n.toLocaleString('en-US');

/** The median; of an even count, the mean of the middle two; of none, NaN (there is no median). */
export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A figure that can stand in a ratio: a finite number, above zero unless zero is a real outcome (a throughput of nothing). */
function figureWhy(value: number | null | undefined, what: string, zeroIsReal: boolean): string | undefined {
  if (value === undefined || value === null || !Number.isFinite(value)) return `no ${what}`;
  if (value < 0 || (value === 0 && !zeroIsReal)) return `${what} ${value}, which no measurement gives`;
  return undefined;
}

/** Why a round's sample set cannot stand for what was offered, if it cannot. */
function countsWhy(counts: Counts | undefined, i: number, what: string): string | undefined {
  if (!counts) return undefined;
  const offered = counts.offered?.[i];
  const timed = counts.timed?.[i];
  if (!Number.isFinite(offered) || !Number.isFinite(timed)) return `no count of the ${what}'s requests offered and timed`;
  if (offered! <= 0) return `the ${what} was offered no requests`;
  if (timed! < offered! * MIN_TIMED_SHARE) return `the ${what} timed ${count(timed!)} of ${count(offered!)} requests offered (under ${MIN_TIMED_SHARE * 100}%)`;
  return undefined;
}

export interface RatioInput {
  measured: number[] | undefined;
  reference: number[] | undefined;
  /** Rounds the pass ran: a figure absent from one of them is missing, not skipped. */
  rounds: number;
  /** A latency: 0 ms is no measurement. A throughput of 0 is a real (missed) one. */
  latency: boolean;
  counts?: { measured?: Counts; reference?: Counts };
}

/** Each round's pair and its ratio, or why it has none. */
export function pairRounds(input: RatioInput): Round[] {
  return Array.from({ length: input.rounds }, (_, i) => {
    const m = input.measured?.[i];
    const r = input.reference?.[i];
    const whys = [
      figureWhy(m, 'figure', !input.latency),
      figureWhy(r, 'reference', false),
      countsWhy(input.counts?.measured, i, 'figure'),
      countsWhy(input.counts?.reference, i, 'reference'),
    ].filter((w): w is string => w !== undefined);
    const pair = { measured: Number.isFinite(m) ? m! : null, reference: Number.isFinite(r) ? r! : null };
    if (whys.length) return { ...pair, ratio: null, why: `round ${i + 1}: ${whys.join('; ')}` };
    return { ...pair, ratio: round2(m! / r!) };
  });
}

const meets = (ratio: number, bound: Bound, goal: number) => (bound === 'atLeast' ? ratio >= goal : ratio <= goal);

export interface Judged {
  verdict: Verdict;
  why?: string;
  ratio?: number;
  /** The lowest and highest round's ratio: how far the same code moved between rounds. */
  spread?: { min: number; max: number };
  /** Some rounds meet the goal and some miss it: the verdict is the median's, and noise could turn it. */
  withinNoise?: boolean;
}

/**
 * Judges a ratio goal on the median of its rounds' ratios. Every round must have given one: a median over
 * the rounds that happened to measure would let a broken round vanish. `fault` is a reason the goal is
 * missed whatever the ratios say (an overdraft), or one it cannot be judged (`notMeasured`).
 */
export function judgeRatio(rounds: Round[], bound: Bound, goal: number, fault?: { missed?: string; notMeasured?: string }): Judged {
  if (fault?.missed) return { verdict: 'missed', why: fault.missed };
  const whys = [...(rounds.length ? [] : ['no round ran']), ...rounds.flatMap((r) => (r.why ? [r.why] : [])), ...(fault?.notMeasured ? [fault.notMeasured] : [])];
  if (whys.length) return { verdict: 'not measured', why: whys.join('; ') };
  const ratios = rounds.map((r) => r.ratio!);
  const ratio = round2(median(ratios));
  const spread = { min: Math.min(...ratios), max: Math.max(...ratios) };
  const withinNoise = ratios.some((r) => meets(r, bound, goal)) && ratios.some((r) => !meets(r, bound, goal));
  const judged = { ratio, spread, withinNoise };
  if (meets(ratio, bound, goal)) return { verdict: 'met', ...judged };
  return { verdict: 'missed', why: `median ${ratio} ${bound === 'atLeast' ? '<' : '>'} ${goal}`, ...judged };
}

/**
 * A count that must be zero in every round (overdrafts): one above zero misses the goal whatever its ratio;
 * one missing leaves it unjudged, since `[].every(…)` would call an unread count clean.
 */
export function zeroInEveryRound(values: number[] | undefined, rounds: number, what: string): { missed?: string; notMeasured?: string } {
  const each = Array.from({ length: rounds }, (_, i) => values?.[i]);
  const missing = each.flatMap((v, i) => (v === undefined || v === null || !Number.isFinite(v) || v < 0 ? [i] : []));
  const above = each.flatMap((v, i) => (v !== undefined && v !== null && v > 0 ? [i] : []));
  return {
    ...(above.length ? { missed: `${what} in round ${above.map((i) => i + 1).join(', ')}` } : {}),
    ...(missing.length ? { notMeasured: `no count of ${what} in round ${missing.map((i) => i + 1).join(', ')}` } : {}),
  };
}

/** An absolute ceiling (a peak RSS): a missing figure, or one of zero where zero is impossible, is not measured. */
export function judgeAtMost(value: number | null | undefined, bound: number, unit: string, what: string): Judged {
  const why = figureWhy(value, what, false);
  if (why) return { verdict: 'not measured', why };
  if (value! <= bound) return { verdict: 'met' };
  return { verdict: 'missed', why: `${value} ${unit} > ${bound} ${unit}` };
}
