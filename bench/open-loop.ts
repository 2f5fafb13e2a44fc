import https from 'node:https';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Percentile of a list of numbers (nearest rank). Of none, NaN: there is no such figure, and a 0 read as
 * the fastest latency ever seen (a round in which every request failed had a p99 of 0, and met its goal).
 */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Fires `count` calls at a fixed arrival rate, never waiting for earlier ones: a slow server cannot slow
 * the arrivals down and hide its latency. Resolves with every call's result once all have answered.
 */
export async function openLoop<T>(ratePerSec: number, count: number, call: (i: number, dueMs: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const pending: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / ratePerSec;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(call(i, due));
  }
  return Promise.all(pending);
}

interface FixedRateOptions {
  /** The request's URL; a function of its index where each must differ (one pay per session). */
  url: string | ((i: number) => string);
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  ca: Buffer;
  rate: number;
  durationSec: number;
  warmupSec?: number;
  /** Keep each measured request's due moment (epoch ms) and latency, to place a tail in time. */
  keepSamples?: boolean;
  /**
   * What an answer was, read from its status and body (`200 completed`, `200 processing`), and whether it
   * is timed. Without it, the status is the outcome and a 2xx is timed.
   */
  outcomeOf?: (status: number, body: string) => { outcome: string; timed: boolean };
}

interface FixedRateLatency {
  rps: number;
  /** Requests sent while measuring, and those answered 2xx, whose latencies the percentiles are of. */
  offered: number;
  timed: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
  socketsOpened: number;
  generatorDelayMs: { p99: number; max: number };
  /** With `keepSamples`: each answered request's due moment (epoch ms) and latency (ms). */
  samples?: [number, number][];
}

/**
 * One request every 1/rate seconds, evenly spaced, for `durationSec`. Each latency runs from the moment
 * the request was due, not from when it was sent, so a client that fell behind cannot hide the wait
 * (coordinated omission). Used for latency at a fixed rate because autocannon's `overallRate` sends each
 * connection's quota for the second back to back at the second's start: bursts, not a fixed arrival rate.
 *
 * The same rate runs for `warmupSec` first, unrecorded, on the same keep-alive pool: a pool opened
 * during the measurement put every TLS handshake of its first second into the figures (a probe at
 * 1,200/s: 256 sockets opened and every request of the first 1.4 s over 20 ms, p99 280 ms; with the pool
 * open, 37 sockets and p99 10-11 ms). The report carries the sockets opened while measuring and the
 * generator's own event-loop delay, so a tail of the generator's making shows as such.
 */
export async function fixedRateLatency(opts: FixedRateOptions): Promise<FixedRateLatency> {
  const agent = new https.Agent({ ca: opts.ca, keepAlive: true, maxSockets: 256 });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const samples: [number, number][] = [];
  let errors = 0;
  const count = (seconds: number) => Math.round(opts.rate * seconds);
  const urlOf = typeof opts.url === 'string' ? () => opts.url as string : opts.url;
  const judge = opts.outcomeOf ?? ((status: number) => ({ outcome: String(status), timed: status >= 200 && status < 300 }));
  // The warm-up's requests come first: with a URL per request, the measured ones take the indexes after them.
  let sent = 0;
  const run = (seconds: number, record: boolean) =>
    openLoop(opts.rate, count(seconds), (_i, dueMs) =>
      new Promise<void>((resolve) => {
        const req = https.request(urlOf(sent++), { method: opts.method, headers: opts.headers, agent, servername: 'localhost' }, (res) => {
          let body = '';
          if (opts.outcomeOf) res.on('data', (chunk) => (body += chunk));
          else res.resume();
          res.on('end', () => {
            if (record) {
              const { outcome, timed } = judge(res.statusCode ?? 0, body);
              statuses[outcome] = (statuses[outcome] ?? 0) + 1;
              if (timed) {
                latencies.push(performance.now() - dueMs);
                if (opts.keepSamples) samples.push([performance.timeOrigin + dueMs, latencies.at(-1)!]);
              }
            }
            resolve();
          });
        });
        req.on('error', () => {
          if (record) errors++;
          resolve();
        });
        req.end(opts.body);
      }),
    );
  await run(opts.warmupSec ?? 3, false);
  // Sockets the agent opens from here on: the pool should already hold what the rate needs.
  const socketsOpened = countNewSockets(agent);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  await run(opts.durationSec, true);
  const elapsedSec = (performance.now() - started) / 1000;
  delay.disable();
  agent.destroy();
  const ms = (p: number) => Math.round(percentile(latencies, p) * 10) / 10;
  return {
    rps: Math.round(latencies.length / elapsedSec),
    offered: count(opts.durationSec),
    timed: latencies.length,
    p50: ms(50),
    p99: ms(99),
    statuses,
    errors,
    socketsOpened: socketsOpened(),
    generatorDelayMs: { p99: Math.round(delay.percentile(99) / 1e5) / 10, max: Math.round(delay.max / 1e5) / 10 },
    ...(opts.keepSamples ? { samples } : {}),
  };
}

/** Counts the sockets an agent opens from now on; the returned function reads the count. */
function countNewSockets(agent: https.Agent): () => number {
  let opened = 0;
  const open = agent.createConnection.bind(agent);
  agent.createConnection = ((...args: Parameters<typeof open>) => {
    opened++;
    return open(...args);
  }) as typeof agent.createConnection;
  return () => opened;
}

export interface JsonClient {
  post: (path: string, body: unknown, key?: string) => Promise<{ status: number; body: any }>;
  get: (path: string, key?: string) => Promise<{ status: number; body: any }>;
}

/** A keep-alive HTTPS JSON client that trusts the benchmark's CA. */
export function jsonClient(origin: string, ca: Buffer): JsonClient {
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 64 });
  const send = (method: string, path: string, body?: unknown, key?: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = {};
      if (key) headers.authorization = `Bearer ${key}`;
      if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
      const req = https.request(new URL(path, origin), { method, headers, agent, servername: 'localhost' }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { post: (p, b, k) => send('POST', p, b, k), get: (p, k) => send('GET', p, undefined, k) };
}
