import http from 'node:http';
import { createLogger } from '../../src/log.js';
import { startOpsPort } from '../../src/main/ops-port.js';
import { startOpsServer, type OpsServer } from '../../src/ops/ops-server.js';
import { metrics } from '../../src/ops/metrics.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { freePort } from '../../src/dev/free-port.js';


let admin: OpsServer;
// Declared first, so it runs before the stack stops (hooks run in the order declared).
afterAll(async () => admin?.close());
const stack = useStack(async () => ({ TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`, ADMIN_PORT: '0' }));
const biz = useBusiness(stack);
beforeAll(async () => {
  admin = await startOpsPort({ config: stack.config, connections: { orm: stack.orm, temporal: stack.temporal }, log: createLogger('silent'), worker: true });
});

function get(port: number, path: string): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
      })
      .on('error', reject);
  });
}

describe('admin port', () => {
  it('is not the API port', () => {
    expect(admin.port).not.toBe(Number(new URL(stack.origin).port));
  });

  it('GET /healthz: the process is alive', async () => {
    const res = await get(admin.port, '/healthz');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ status: 'ok' });
  });

  it('GET /readyz: ready when the database and Temporal answer', async () => {
    const res = await get(admin.port, '/readyz');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('GET /readyz: 503 naming the dependency that does not answer, and while draining', async () => {
    const failing = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      log: createLogger('silent'),
      checks: { database: async () => 1, temporal: () => Promise.reject(new Error('connect ECONNREFUSED')) },
    });
    try {
      const res = await get(failing.port, '/readyz');
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual({ status: 'not_ready', checks: { database: 'ok', temporal: 'unreachable' } });
      failing.drain();
      expect(JSON.parse((await get(failing.port, '/readyz')).text).checks.shutdown).toBe('draining');
      expect((await get(failing.port, '/healthz')).status).toBe(200);
    } finally {
      await failing.close();
    }
  });

  it('GET /readyz: 503 while the process starts, naming what it waits for, whatever its checks say; ready once it serves', async () => {
    const starting = await startOpsServer({ host: '127.0.0.1', port: 0, log: createLogger('silent'), checks: { database: async () => 1 }, starting: true });
    try {
      const readyz = async () => {
        const res = await get(starting.port, '/readyz');
        return { status: res.status, body: JSON.parse(res.text) };
      };
      expect(await readyz()).toEqual({ status: 503, body: { status: 'not_ready', checks: { database: 'ok', startup: 'starting' } } });
      starting.waitingFor('PostgreSQL at db:5432');
      expect(await readyz()).toEqual({ status: 503, body: { status: 'not_ready', checks: { database: 'ok', startup: 'waiting for PostgreSQL at db:5432' } } });
      expect((await get(starting.port, '/healthz')).status).toBe(200);
      starting.waitingFor(null);
      expect((await readyz()).body.checks.startup).toBe('starting');
      starting.serving();
      expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok' } } });
      // A late word from a wait (a worker's own connection) does not make a serving process not ready.
      starting.waitingFor('Temporal at t:7233');
      expect((await readyz()).status).toBe(200);
    } finally {
      await starting.close();
    }
  });

  it('GET /metrics: request latency by route template and status, outcome counters, and the Temporal SDK’s metrics', async () => {
    const created = await stack.http.post(
      '/api/checkout/sessions',
      { description: 'Order', customer: { email: 'b@example.com' }, items: [{ name: 'W', price: 1, quantity: 1 }] },
      { key: biz.testKey },
    );
    await stack.http.get(`/api/v1/checkout/sessions/${created.body.data.id}`, { key: biz.testKey });
    metrics.withdrawal('requested');

    let text = '';
    for (let i = 0; i < 50 && !/^temporal_/m.test(text); i++) {
      text = (await get(admin.port, '/metrics')).text;
      if (!/^temporal_/m.test(text)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="0.1",method="POST",route="\/api\/checkout\/sessions",status="201"\} \d+/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/checkout\/sessions\/:id",status="200"\} \d+/m);
    expect(text).toMatch(/^withdrawals_total\{outcome="requested"\} [1-9]/m);
    for (const name of ['payments_total', 'refunds_total', 'webhook_delivery_attempts_total', 'webhook_deliveries_total', 'workflow_failures_total']) {
      expect(text).toContain(`# TYPE ${name} counter`);
    }
    expect(text).toMatch(/^temporal_\w+/m);
  });
});
