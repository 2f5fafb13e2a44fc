/**
 * The worker's `workflow task schedule-to-start` latency, read from the Temporal SDK's Prometheus
 * histogram the worker's admin port serves (`/metrics`): how long a workflow task waited on its queue
 * before the worker picked it up. Temporal's workflow task timeout is 10 s; this is the headroom.
 */
const METRIC = 'temporal_workflow_task_schedule_to_start_latency';

export interface Histogram {
  count: number;
  sumMs: number;
  /** Cumulative counts per upper bound (ms), as Prometheus exposes them. */
  buckets: [number, number][];
}

export async function scrapeScheduleToStart(adminPort: number): Promise<Histogram | null> {
  const res = await fetch(`http://127.0.0.1:${adminPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
  return parseHistogram(await res.text());
}

/** Sums the histogram over its label sets (sticky and normal queues). */
export function parseHistogram(text: string): Histogram | null {
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  let seen = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(METRIC)) continue;
    seen = true;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${METRIC}_bucket`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      const bound = le === '+Inf' ? Infinity : Number(le);
      buckets.set(bound, (buckets.get(bound) ?? 0) + value);
    } else if (line.startsWith(`${METRIC}_count`)) count += value;
    else if (line.startsWith(`${METRIC}_sum`)) sum += value;
  }
  if (!seen) return null;
  return { count, sumMs: sum, buckets: [...buckets.entries()].sort((a, b) => a[0] - b[0]) };
}

/** The difference of two scrapes: what one measurement added. */
export function since(after: Histogram, before: Histogram | null): Histogram {
  const prior = new Map(before?.buckets ?? []);
  return {
    count: after.count - (before?.count ?? 0),
    sumMs: after.sumMs - (before?.sumMs ?? 0),
    buckets: after.buckets.map(([le, n]) => [le, n - (prior.get(le) ?? 0)]),
  };
}

/** The bucket bound under which a quantile falls (an upper bound on it, as Prometheus buckets give). */
export function quantileBound(h: Histogram, q: number): number {
  const target = q * h.count;
  for (const [le, n] of h.buckets) if (n >= target) return le;
  return Infinity;
}

/** A histogram's sum and count (ms) per value of one label, over every other label: `chargeCard` → {sum, count}. */
export function sumsByLabel(text: string, metric: string, label: string): Map<string, { sum: number; count: number }> {
  const by = new Map<string, { sum: number; count: number }>();
  for (const line of text.split('\n')) {
    const kind = line.startsWith(`${metric}_sum{`) ? 'sum' : line.startsWith(`${metric}_count{`) ? 'count' : null;
    if (!kind) continue;
    const key = new RegExp(`${label}="([^"]*)"`).exec(line)?.[1];
    if (key === undefined) continue;
    const entry = by.get(key) ?? { sum: 0, count: 0 };
    entry[kind] += Number(line.slice(line.lastIndexOf(' ') + 1));
    by.set(key, entry);
  }
  return by;
}
