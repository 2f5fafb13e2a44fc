import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { runningEmbeddedPort } from '../../src/dev/embedded-postgres.js';
import { DATA_ROOT, effectiveDataDir } from '../../src/dev/postgres-user.js';
import { createHttpClient } from '../support/http.js';
import { forceStop, freshClone, readmeQuickStart, runLine, troubleIn, userEnv, waitFor, type Clone, type Running } from '../support/quick-start.js';

/**
 * The README's promise: in a fresh clone, in a directory only its owner can enter, `npm start` and
 * `npm test` work with no other step, as root and as anyone else (this file runs as whoever runs the
 * suite). The commands are read from the README and run as it writes them; only the ports are the
 * test's own, so it does not collide with a service already running here. `npm test` cannot run the
 * whole suite inside itself, so it runs one small file through the README's command.
 */
const repo = process.cwd();
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const { commands, tryIt } = readmeQuickStart(readme);
const root = process.getuid?.() === 0;
let clone: Clone;
let start: Running | undefined;
let ports: Record<string, string>;

beforeAll(async () => {
  clone = freshClone(repo);
  ports = {
    PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    DEV_POSTGRES_PORT: String(await freePort()),
    DEV_TEMPORAL_PORT: String(await freePort()),
    DEV_TEMPORAL_UI_PORT: String(await freePort()),
  };
});

afterAll(async () => {
  if (start) await forceStop(start);
  if (!clone) return;
  const pgDir = effectiveDataDir(path.join(clone.dir, '.data', 'pg'));
  if (pgDir.startsWith(`${DATA_ROOT}/`)) rmSync(path.dirname(pgDir), { recursive: true, force: true });
  clone.remove();
}, 60_000);

describe('quick start, as the README gives it', () => {
  it('is two commands: npm start and npm test', () => {
    expect(commands.map((c) => c.replace(/\s*#.*$/, ''))).toEqual(['npm start', 'npm test']);
  });

  it('npm start serves the README request over TLS, says where its data is, and Ctrl-C ends it cleanly', async () => {
    start = runLine(commands[0]!, clone.dir, userEnv(repo, ports));
    await waitFor(start, 'Press Ctrl-C to stop.', 240_000);
    const banner = start.output();
    const origin = /API\s+(https:\/\/\S+)\/api/.exec(banner)?.[1];
    const key = /Demo test key\s+(mp_test_\S+)/.exec(banner)?.[1];
    expect(origin).toBe(`https://localhost:${ports.PORT}`);
    expect(key).toMatch(/^mp_test_/);

    // The banner names where PostgreSQL keeps its data; as root it must be where the postgres user reaches.
    const pgData = /PostgreSQL\s+127\.0\.0\.1:\d+, data in (\S+)/.exec(banner)?.[1];
    expect(pgData).toBe(effectiveDataDir(path.join(clone.dir, '.data', 'pg')));
    expect(existsSync(path.join(pgData!, 'PG_VERSION'))).toBe(true);
    if (root) expect(pgData!.startsWith(clone.home)).toBe(false);

    // The README's "Try it": its CA file, relative to the clone, and its path, with the printed key.
    const [, caFile, apiPath] = /--cacert (\S+) .*https:\/\/localhost:\d+(\S+)/.exec(tryIt) ?? [];
    const http = createHttpClient(origin!, readFileSync(path.resolve(clone.dir, caFile!)));
    const listed = await http.get(apiPath!, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.success).toBe(true);
    // A session, so the worker and the outbox relay have work in hand when Ctrl-C comes.
    const created = await http.post(
      '/api/checkout/sessions',
      { description: 'Quick start', customer: { email: 'new@user.test' }, items: [{ name: 'Tea', price: 4.5, quantity: 2 }] },
      { key },
    );
    expect(created.status).toBe(201);
    http.close();

    start.interrupt();
    const timer = setTimeout(() => start?.interrupt(), 60_000);
    const ended = await start.exited;
    clearTimeout(timer);
    const afterBanner = start.output().slice(banner.length);
    // npm reports Ctrl-C as Ctrl-C (130, or the signal itself) however its script ended; a script that
    // failed would add "npm error" lines, which troubleIn catches.
    expect(ended.signal === 'SIGINT' || ended.code === 130).toBe(true);
    expect(troubleIn(start.output())).toEqual([]);
    expect(afterBanner).not.toMatch(/terminating connection|shutdown:/);
    // Nothing left running: the database and Temporal stopped with it.
    expect(runningEmbeddedPort(path.join(clone.dir, '.data', 'pg'))).toBeNull();
    expect(await accepts(Number(ports.DEV_TEMPORAL_PORT))).toBe(false);
  }, 330_000);

  it('npm test runs in the clone (one small file, through the README command)', async () => {
    const run = runLine(`${commands[1]!.replace(/\s*#.*$/, '')} -- test/http/versioning.test.ts`, clone.dir, userEnv(repo));
    const ended = await run.exited;
    expect({ ended, tail: run.output().split('\n').slice(-12) }).toMatchObject({ ended: { code: 0, signal: null } });
    expect(run.output()).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 240_000);
});

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
