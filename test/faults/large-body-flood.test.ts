/**
 * The API runs with its old space capped (NODE_OPTIONS, as `npm run api` and compose start it). A flood
 * of large request bodies, parsed before any key is checked, so anyone's, must not grow the heap past the
 * cap and kill the process: the bodies held at once are bounded (BODY_BYTES_IN_FLIGHT), and a body past
 * the bound is answered 503 with Retry-After. This runs the real process with the real flags. With the
 * bound lifted (BODY_BYTES_IN_FLIGHT=1 GiB) this test fails: the process died with "Reached heap limit".
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { HttpClient } from '../support/http.js';
import { eventually, sessionBody } from '../support/payments.js';
import type { TestBusiness } from '../support/stack.js';
import type { ApiProcess } from '../support/stack-processes.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { processes: 'large_bodies' });
let api: ApiProcess;
let http: HttpClient;
let biz: TestBusiness;

beforeAll(async () => {
  api = await stack.processes.api({ env: { NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=16' } });
  http = stack.client(api.origin);
  biz = await stack.business();
}, 120_000);

/** About 1 MB of JSON that parses into tens of thousands of objects: the most heap a body can cost. */
const heavyBody = JSON.stringify({
  description: 'Flood',
  items: Array.from({ length: 24_000 }, (_, i) => ({ name: `n${i}`, price: 1, quantity: 1 })),
});

/** A gauge of the API process, read from its admin port's /metrics. */
async function gauge(name: string): Promise<number> {
  const text = await (await fetch(`${api.adminOrigin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

const BUDGET = 16 * 1024 * 1024; // BODY_BYTES_IN_FLIGHT's default

describe('an API process with a capped heap under 300 concurrent 1 MB bodies', () => {
  it('answers every one with the spec envelope (401, 400 or 503 with Retry-After), holds no more than its budget, and stays up', async () => {
    expect(Buffer.byteLength(heavyBody)).toBeGreaterThan(900_000);
    expect(Buffer.byteLength(heavyBody)).toBeLessThan(1024 * 1024);
    let sampledPeak = 0;
    const sampler = setInterval(() => void gauge('http_request_body_bytes_held').then((held) => (sampledPeak = Math.max(sampledPeak, held)), () => undefined), 50);
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        http.request('POST', '/api/checkout/sessions', {
          // A third with the business's key (too many items: 400), the rest with made-up keys (401).
          key: i % 3 === 0 ? biz.testKey : `sk_test_${randomBytes(16).toString('hex')}`,
          rawBody: heavyBody,
          headers: { 'Content-Type': 'application/json' },
          // Ten client addresses: together they ask for far more than the process's budget, each for more than its share.
          localAddress: `127.0.0.${11 + (i % 10)}`,
          chunked: i % 2 === 1,
          expect5xx: true,
        }),
      ),
    );
    clearInterval(sampler);
    const byStatus: Record<number, number> = {};
    for (const a of answers) {
      byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      if (a.status === 503) {
        expect(a.headers['retry-after']).toBe('1');
        expect(a.body.error).toMatchObject({ type: 'service_unavailable', message: 'The service is temporarily unavailable; please retry' });
      } else if (a.status === 401) {
        expect(a.body.error.type).toBe('authentication_error');
      } else {
        expect(a.status).toBe(400);
        expect(a.body.error.type).toBe('validation_error');
      }
    }
    // The bound was reached (16 MiB is 16 such bodies at once), and the process is still the one started.
    expect(byStatus[503]).toBeGreaterThan(0);
    const peak = await gauge('http_request_body_bytes_held_peak');
    console.info(`large-body flood: ${JSON.stringify(byStatus)}; bytes held at once: peak ${peak} (sampled ${sampledPeak}) of ${BUDGET}`);
    expect(peak).toBeGreaterThan(BUDGET / 2);
    expect(peak).toBeLessThanOrEqual(BUDGET);
    await eventually('every held byte to be given back', async () => (await gauge('http_request_body_bytes_held')) === 0);
    expect(api.child.exitCode).toBeNull();
    const after = await http.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey });
    expect(after.status).toBe(201);
    expect(api.output()).not.toMatch(/heap out of memory|Reached heap limit/);
  }, 120_000);
});
