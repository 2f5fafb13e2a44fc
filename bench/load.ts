import autocannon from 'autocannon';

export interface LoadResult {
  /** Completed 2xx requests per second. */
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses by status code, so a run that was mostly 4xx/5xx cannot pass for a fast one. */
  statuses: Record<string, number>;
  targetRate?: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationSec: number;
  connections: number;
  /** Fixed arrival rate (requests per second over all connections); omit for maximum throughput. */
  rate?: number;
}

/**
 * autocannon, either flat out (max throughput) or at a fixed overall arrival rate. At a fixed rate it is
 * open loop only while rate × latency stays below the connection count, so callers give it many more
 * connections than that product; the achieved rate is reported beside the target so a shortfall shows.
 */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    duration: opts.durationSec,
    connections: opts.connections,
    overallRate: opts.rate,
    pipelining: 1,
  });
  const ok = result['2xx'];
  return {
    rps: Math.round(ok / opts.durationSec),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, (v as { count: number }).count])),
    errors: result.errors + result.timeouts,
    targetRate: opts.rate,
  };
}
