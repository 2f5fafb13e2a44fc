import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/dev/free-port.js';
import type { HttpClient } from '../support/http.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY } from '../support/stack.js';
import { paidSession } from './support/flows.js';
import { moneyProblems } from './support/money.js';
import { readIndex } from '../replay/fixtures.js';
import { explain, prebuiltCode, replay } from '../replay/replayer.js';
import { buildProductionApp, forbiddenLoads, INSTALL, startEntry, type ProductionApp } from './support/production-build.js';
import type { ServiceProcess } from '../support/processes.js';
import { useStack } from '../support/use-stack.js';

/**
 * The production build (docs/production.md): the production build runs as the image runs it. `npm run build`'s output, beside
 * production dependencies alone, started with plain `node dist/migrate.js`, `dist/api.js` and
 * `dist/worker.js` on an empty database, pays a session end to end, and no TypeScript is loaded on
 * the way. The start-up budget (API listening in under 2 s, worker polling in under 3 s) is a speed
 * target, so `npm run bench` measures it ((s), bench/startup.ts), not this test.
 */
let app: ProductionApp;
let root: string;
let databaseUrl: string;
let api: ServiceProcess | undefined;
let apiPort: string;

/** A fresh, empty database (not the migrated template): dist/migrate.js has all its work to do. */
async function emptyDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What an operator sets, and nothing inherited from this process (no NODE_OPTIONS, no loader). */
function env(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.wiring.temporalAddress,
    TEMPORAL_TASK_QUEUE: stack.wiring.taskQueue,
    DATA_DIR: path.join(root, 'data', name),
    WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    LOG_LEVEL: 'info',
    LOADED_MODULES_FILE: path.join(root, `loaded-${name}.txt`),
    ...extra,
  };
}

async function apiEnv(name: string): Promise<Record<string, string>> {
  return env(name, {
    PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    TLS_CERT_FILE: process.env.TEST_TLS_CERT!,
    TLS_KEY_FILE: process.env.TEST_TLS_KEY!,
  });
}

async function workerEnv(name: string): Promise<Record<string, string>> {
  return env(name, {
    ADMIN_PORT: String(await freePort()),
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
    WORKER_SHUTDOWN_GRACE: '1s',
    // At INFO the SDK says "Workflow bundle created" whenever it bundles: it must not, here.
    TEMPORAL_SDK_LOG_LEVEL: 'INFO',
  });
}

/** SIGTERM ends it through its shutdown sequence, with exit code 0 (its output tail shown if not). */
async function expectCleanStop(proc: ServiceProcess): Promise<void> {
  await proc.stop();
  const { code } = await proc.exited;
  expect({ code, output: code === 0 ? '' : proc.output().slice(-3000) }).toEqual({ code: 0, output: '' });
}

beforeAll(async () => {
  root = path.join(process.env.TEST_ROOT!, 'production-build');
  [app, databaseUrl] = await Promise.all([buildProductionApp(root), emptyDatabase('faults_production_build')]);
}, 400_000);
// On the empty database, once it exists: the entry points run from dist/ (startEntry), not as the stack's processes.
const stack = useStack(async () => ({ DATABASE_URL: databaseUrl }), { processes: 'production_build' });

describe('the production build (dist/, production dependencies only, plain node)', () => {
  it('is what the image and compose run: the same install, the same entry points', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const compose = readFileSync('docker-compose.yml', 'utf8');
    expect(dockerfile).toContain(`RUN npm ${INSTALL.join(' ')} `);
    expect(dockerfile).toContain('RUN npm run build');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
    expect(dockerfile).toContain('CMD ["node", "--enable-source-maps", "dist/api.js"]');
    for (const entry of ['migrate', 'api', 'worker']) expect(compose).toContain(`command: ["node", "--enable-source-maps", "dist/${entry}.js"]`);
    expect(compose).not.toMatch(/tsx|src\/main/);
  });

  it('its prebuilt workflow bundle (dist/workflow-bundle.js, what the worker runs) replays every recorded history', async () => {
    const fixtures = readIndex();
    const results = await replay(prebuiltCode(path.join(root, 'dist', 'workflow-bundle.js')), fixtures);
    expect(fixtures.map((fixture) => explain(fixture, results.get(fixture.workflowId))).filter(Boolean)).toEqual([]);
    expect(results.size).toBe(fixtures.length);
  }, 180_000);

  it('an API started before the migrations waits for them; dist/migrate.js applies them once', async () => {
    const apiEnvironment = await apiEnv('api');
    apiPort = apiEnvironment.PORT;
    api = startEntry(app, 'api.js', apiEnvironment);
    await api.waitFor('waiting for migrations');
    expect(api.output()).not.toContain('API listening');

    const migrate = startEntry(app, 'migrate.js', env('migrate'));
    expect((await migrate.exited).code).toBe(0);
    expect(migrate.output()).toMatch(/applied \d+ migration\(s\); schema current/);
    await api.waitFor('API listening', 30_000);

    const again = startEntry(app, 'migrate.js', env('migrate-again'));
    expect((await again.exited).code).toBe(0);
    expect(again.output()).toContain('schema current; nothing to apply');
  });

  it('pays a session end to end through dist/api.js and dist/worker.js, serving the page assets and the docs bundle', async () => {
    expect(api).toBeDefined();
    const worker = startEntry(app, 'worker.js', await workerEnv('worker'));
    await worker.waitFor('worker running');
    const http: HttpClient = stack.client(`https://localhost:${apiPort}`);
    const biz = await stack.business();

    const session = await paidSession(http, biz.testKey);
    const read = await http.get(`/api/checkout/sessions/${session.id}`, { key: biz.testKey });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: session.id, status: 'completed' });
    // Files that are not TypeScript, found from dist/ at run time.
    const css = await http.get('/checkout/assets/checkout.css', { offDocument: true });
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const redoc = await http.get('/docs/redoc.standalone.js', { offDocument: true });
    expect(redoc.status).toBe(200);
    expect(redoc.text.length).toBeGreaterThan(100_000);
    expect(await moneyProblems(stack.orm)).toEqual([]);
    // The operator's own check, from the same build.
    const verify = startEntry(app, 'admin.js', env('admin'), ['ledger', 'verify']);
    expect((await verify.exited).code).toBe(0);
    expect(verify.output()).toContain('Ledger verified: every invariant holds.');

    // The worker loaded the prebuilt bundle: it never bundled, and nothing loaded TypeScript.
    expect(worker.output()).toContain('Worker state changed'); // the SDK's INFO lines do reach the output
    expect(worker.output()).not.toContain('Workflow bundle created');
    for (const name of ['api', 'migrate', 'worker', 'admin']) expect({ name, loads: forbiddenLoads(path.join(root, `loaded-${name}.txt`)) }).toEqual({ name, loads: [] });
    await expectCleanStop(worker);
    await expectCleanStop(api!);
  });
});
