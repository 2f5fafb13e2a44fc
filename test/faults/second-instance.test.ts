/**
 * Issue 42, section 2, as its reader would try it: a default `npm start` in one clone, then
 * `PORT=8443 npm start` in a second clone beside it, and both serve at the same time, each on its own
 * PostgreSQL and Temporal. Two whole stacks (two embedded PostgreSQLs, two Temporal dev servers, two
 * workers bundling their workflows): here, where files run one at a time, rather than in the main run.
 *
 * The first instance takes the default ports themselves, as the claim is about them: a derived port
 * that equals a default one would only show here. So the test needs them free, and says so at once when
 * they are not (an `npm start` left running on this machine), instead of failing late on a clash.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { DATA_ROOT, effectiveDataDir } from '../../src/dev/postgres-user.js';
import { createHttpClient, type HttpClient } from '../support/http.js';
import { sessionBody } from '../support/payments.js';
import { forceStop, freshClone, runLine, troubleIn, userEnv, waitFor, type Clone, type Running } from '../support/quick-start.js';

const repo = process.cwd();
const DEFAULT_PORTS = [3443, 9464, 9465, 54329, 7233, 8233];
const SECOND_PORTS = [8443, 8444, 8445, 8446, 8447, 8448];
const READY = 'Press Ctrl-C to stop.';

interface Instance {
  clone: Clone;
  run: Running;
  banner: string;
  api: HttpClient;
  key: string;
}
const instances: Instance[] = [];

/** `line` in a fresh clone, until its banner; then the service as its demo.env describes it. */
async function start(line: string): Promise<Instance> {
  const clone = freshClone(repo);
  const run = runLine(line, clone.dir, userEnv(repo));
  instances.push({ clone, run, banner: '', api: undefined!, key: '' });
  await waitFor(run, READY, 420_000);
  const env = Object.fromEntries(
    readFileSync(path.join(clone.dir, '.data', 'demo.env'), 'utf8')
      .split('\n')
      .flatMap((l) => [...l.matchAll(/^export (\w+)='(.*)'$/g)].map((m) => [m[1], m[2]])),
  );
  const instance = { clone, run, banner: run.output(), key: env.PAYMENTS_API_KEY, api: createHttpClient(new URL(env.PAYMENTS_API_URL).origin, readFileSync(env.PAYMENTS_CA_FILE)) };
  instances[instances.length - 1] = instance;
  return instance;
}

beforeAll(async () => {
  const held = [];
  for (const port of [...DEFAULT_PORTS, ...SECOND_PORTS]) if (!(await isFree(port))) held.push(port);
  if (held.length) throw new Error(`ports ${held.join(', ')} are held on this machine (an npm start left running?): this test runs a default npm start and a PORT=8443 one itself`);
}, 30_000);

afterAll(async () => {
  for (const { run, clone } of instances) {
    await forceStop(run);
    // As root the database lives outside the clone (src/dev/postgres-user.ts): remove it as `npm run clean` would.
    const pgDir = effectiveDataDir(path.join(clone.dir, '.data', 'pg'));
    if (pgDir.startsWith(`${DATA_ROOT}/`)) rmSync(path.dirname(pgDir), { recursive: true, force: true });
    clone.remove();
  }
}, 120_000);

describe('a second npm start beside the first, in another clone', () => {
  let first: Instance;
  let second: Instance;

  it('a default npm start serves on the default ports', async () => {
    first = await start('npm start');
    expect(first.banner).toContain('API reference    https://localhost:3443/docs');
    expect(first.banner).toContain('Temporal UI      http://localhost:8233   (the dev server at 127.0.0.1:7233)');
    expect(first.banner).toContain('Metrics, health  http://127.0.0.1:9464/metrics');
    expect(first.banner).toMatch(/PostgreSQL\s+127\.0\.0\.1:54329,/);
    expect(first.banner).not.toContain('follows PORT');
  }, 450_000);

  it('PORT=8443 npm start needs nothing more: its other ports follow PORT, and its banner shows each', async () => {
    expect(first).toBeDefined();
    second = await start('PORT=8443 npm start');
    expect(second.banner).toContain('API reference    https://localhost:8443/docs');
    expect(second.banner).toContain('Temporal UI      http://localhost:8448   (the dev server at 127.0.0.1:8447)');
    expect(second.banner).toContain("Metrics, health  http://127.0.0.1:8444/metrics  /healthz  /readyz   (with the worker's SDK metrics, from 127.0.0.1:8445)");
    expect(second.banner).toMatch(/PostgreSQL\s+127\.0\.0\.1:8446,/);
    expect(second.banner).toContain('Ports            each one not set follows PORT=8443');
    expect(troubleIn(second.run.output())).toEqual([]);
  }, 450_000);

  it('both serve at once, each its own service: a session created on each, neither known to the other', async () => {
    expect(second).toBeDefined();
    const [a, b] = await Promise.all([first, second].map((i) => i.api.post('/api/checkout/sessions', sessionBody(), { key: i.key })));
    expect([a.status, b.status]).toEqual([201, 201]);
    // Two databases: the second's key is not the first's, and a session of one is nowhere in the other.
    expect(first.key).not.toBe(second.key);
    const [mine, theirs] = await Promise.all([second.api.get(`/api/checkout/sessions/${b.body.data.id}`, { key: second.key }), first.api.get(`/api/checkout/sessions/${b.body.data.id}`, { key: first.key })]);
    expect([mine.status, theirs.status]).toEqual([200, 404]);
    // Each admin port answers for its own process, and each is ready: its own PostgreSQL and Temporal reachable.
    for (const port of [9464, 8444]) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect({ port, status: ready.status, body: await ready.json() }).toEqual({ port, status: 200, body: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } } });
    }
    // And the first is undisturbed by the second's start.
    expect(troubleIn(first.run.output())).toEqual([]);
  }, 120_000);
});

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
