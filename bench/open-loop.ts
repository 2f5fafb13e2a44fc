import https from 'node:https';

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Fires `count` calls at a fixed arrival rate, never waiting for earlier ones: a slow server cannot slow
 * the arrivals down and hide its latency. Resolves with every call's result once all have answered.
 */
export async function openLoop<T>(ratePerSec: number, count: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const pending: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / ratePerSec;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(call(i));
  }
  return Promise.all(pending);
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
