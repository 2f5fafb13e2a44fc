import path from 'node:path';
import { migrate } from '../../src/db/orm.js';
import { openDatabase } from '../../src/main/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { freePort } from '../../src/dev/free-port.js';
import type { HttpClient } from '../support/http.js';
import type { ServiceProcess } from '../support/processes.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { createSession, paidSession, until } from './support/flows.js';

/**
 * Processes started before what they need: an API started while PostgreSQL is down, and a
 * worker started while Temporal is down, wait for it instead of exiting. Meanwhile each is alive on its
 * admin port and not ready, says what it waits for in one line per try (no stack), and serves as soon as
 * the dependency answers. PostgreSQL and Temporal are the file's own, so it can stop and start them.
 */
let db: EmbeddedDatabase;
let dbPort: number;
let temporal: TemporalDevServer;
let temporalPort: number;
const dir = (name: string) => path.join(process.env.TEST_ROOT!, 'faults', 'startup-wait', name);
const startDb = () => startEmbeddedPostgres({ databaseDir: dir('pg'), port: dbPort, database: 'payments' });
const startTemporal = () => startTemporalDevServer({ dataDir: dir('temporal'), port: temporalPort, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });

const stack = useStack(async () => {
  if (!process.env.TEMPORAL_CLI_PATH) throw new Error('TEMPORAL_CLI_PATH is needed to stop and start a dev server (npm run test:faults provisions it)');
  [dbPort, temporalPort] = [await freePort(), await freePort()];
  [db, temporal] = await Promise.all([startDb(), startTemporal()]);
  const orm = await openDatabase(db.url());
  await migrate(orm);
  await orm.close();
  return { DATABASE_URL: db.url(), TEMPORAL_ADDRESS: temporal.address };
}, { processes: 'startup_wait' });
afterAll(async () => Promise.all([db?.stop(), temporal?.stop()]));

let api: ServiceProcess & { origin: string };
let http: HttpClient;
let biz: TestBusiness;

/** The process's "waiting for <what>" records, parsed. */
const waitingLines = (proc: ServiceProcess, what: string) =>
  proc
    .output()
    .split('\n')
    .filter((line) => line.includes(`"waiting for ${what} at `))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Each try is one warning naming what and why, without a stack; the delays back off, capped at 5 s. */
function expectWaitingLines(proc: ServiceProcess, what: string, reason: RegExp) {
  const lines = waitingLines(proc, what);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const line of lines) {
    expect(line).toMatchObject({ level: 40, waitingFor: expect.stringMatching(new RegExp(`^${what} at 127\\.0\\.0\\.1:\\d+$`)) });
    expect(line.msg).toMatch(new RegExp(`^waiting for ${what} at 127\\.0\\.0\\.1:\\d+: .+; trying again in [\\d.]+ s$`));
    expect(line.reason).toMatch(reason);
    expect(line).not.toHaveProperty('err');
  }
  const delays = lines.map((l) => l.retryInMs as number);
  expect(delays).toEqual([...delays].sort((a, b) => a - b));
  expect(Math.max(...delays)).toBeLessThanOrEqual(5_000);
  // No stack anywhere in what it printed: not in these lines, not beside them.
  expect(proc.output()).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
}

async function admin(origin: string, route: '/healthz' | '/readyz') {
  const res = await fetch(`${origin}${route}`);
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } };
}

describe('a process started before what it needs', () => {
  it('an API started while PostgreSQL is down stays up, alive and not ready, says what it waits for, and serves once PostgreSQL starts', async () => {
    biz = await stack.business();
    await db.stop();
    const [port, adminPort] = [await freePort(), await freePort()];
    const adminOrigin = `http://127.0.0.1:${adminPort}`;
    const proc = stack.processes.run('api', 'src/main/api.ts', {
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      TLS_CERT_FILE: process.env.TEST_TLS_CERT!,
      TLS_KEY_FILE: process.env.TEST_TLS_KEY!,
    });
    api = { ...proc, origin: `https://localhost:${port}` };
    await api.waitFor('"waiting for PostgreSQL', 90_000);
    expect(await admin(adminOrigin, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await admin(adminOrigin, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', checks: { database: 'unreachable', startup: expect.stringMatching(/^waiting for PostgreSQL at 127\.0\.0\.1:\d+$/) } });
    // Waiting, not exiting: a second try, after its backoff.
    await until('a second try', async () => waitingLines(api, 'PostgreSQL').length >= 2, 30_000);
    expect(api.child.exitCode).toBeNull();
    expect(api.output()).not.toContain('API listening');

    db = await startDb();
    await api.waitFor('API listening', 60_000);
    expectWaitingLines(api, 'PostgreSQL', /ECONNREFUSED/);
    expect(await admin(adminOrigin, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } } });
    http = stack.client(api.origin);
    expect((await createSession(http, biz.testKey)).id).toEqual(expect.any(String));
  }, 180_000);

  it('a worker started while Temporal is down waits, not ready, then runs a payment once Temporal starts; the API that lost Temporal meanwhile recovers', async () => {
    expect(http).toBeDefined();
    await temporal.stop();
    const adminPort = await freePort();
    const adminOrigin = `http://127.0.0.1:${adminPort}`;
    const worker = stack.processes.run('worker', 'src/main/worker.ts', { ADMIN_PORT: String(adminPort) });
    await worker.waitFor('"waiting for Temporal', 90_000);
    expect(await admin(adminOrigin, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await admin(adminOrigin, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', checks: { database: 'ok', temporal: 'unreachable', startup: expect.stringMatching(/^waiting for Temporal at 127\.0\.0\.1:\d+$/) } });
    // The SDK's connect gives up after its own 10 s: the second try shows the wait outlasts it.
    await until('a second try', async () => waitingLines(worker, 'Temporal').length >= 2, 60_000);
    expect(worker.child.exitCode).toBeNull();

    temporal = await startTemporal();
    await worker.waitFor('worker running', 180_000);
    expectWaitingLines(worker, 'Temporal', /.+/);
    await until('the worker to be ready', async () => (await admin(adminOrigin, '/readyz')).status === 200, 30_000);
    const session = await paidSession(http, biz.testKey);
    expect((await http.get(`/api/checkout/sessions/${session.id}`, { key: biz.testKey })).body.data.status).toBe('completed');
    expect(api.child.exitCode).toBeNull();
  }, 300_000);
});
