/**
 * Time of the pay call and of a refund as a client sees it (retries included), for the side-by-side of
 * Temporal as one server and as a cluster (docs/scaling.md): the load's client, wrapped.
 */
import type { Client } from './client.js';

const KINDS = { pay: /^\/api\/checkout\/[^/]+\/pay$/, refund: /^\/api\/refunds$/ } as const;
export type Timed = keyof typeof KINDS;

export function timedClient(client: Client): { client: Client; samples: Record<Timed, number[]> } {
  const samples: Record<Timed, number[]> = { pay: [], refund: [] };
  const post: Client['post'] = async (path, body, key, accept) => {
    const t0 = Date.now();
    const answer = await client.post(path, body, key, accept);
    for (const [kind, pattern] of Object.entries(KINDS) as [Timed, RegExp][]) if (pattern.test(path) && answer.status < 300) samples[kind].push(Date.now() - t0);
    return answer;
  };
  return { client: { ...client, post }, samples };
}

/** `pay: 120 in 160 s (0.75/s), p50 … ms, p99 … ms`: completed calls only. */
export function latencyLine(kind: Timed, ms: number[], seconds: number): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return `${kind}: ${sorted.length} in ${seconds.toFixed(0)} s (${(sorted.length / Math.max(1, seconds)).toFixed(2)}/s), p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1) ?? 0} ms`;
}
