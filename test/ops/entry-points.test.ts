import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { useStack } from '../support/use-stack.js';
import { freePort } from '../../src/dev/free-port.js';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ENV_WARNING, TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_WEBHOOK_ENCRYPTION_KEY } from '../../src/config.js';
import { CERTIFICATE_REQUIRED } from '../../src/main/certificate.js';

/** The real entry points as an operator runs them (`npm run api` / `npm run worker`), as child processes. */
const stack = useStack({}, { worker: false });


interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; stderr: string }>;
}

function run(entry: 'api' | 'worker' | 'migrate', env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/main/${entry}.ts`], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ALLOW_TEST_ENV: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  return { child, output: () => stdout, exited };
}

/**
 * Waits for `text` in the process's output. A process under tsx compiles as it loads, and a worker bundles
 * its workflows (webpack) before it polls: seconds alone, over a minute when the two cores are busy.
 */
async function started(proc: Run, text: string, timeoutMs = 180_000) {
  const until = Date.now() + timeoutMs;
  while (!proc.output().includes(text)) {
    if (Date.now() > until) {
      proc.child.kill('SIGKILL');
      throw new Error(`no "${text}" within ${timeoutMs / 1000} s; output:\n${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const getStatus = (port: number, path: string) =>
  new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject);
  });

describe('configuration is validated at start', () => {
  it.each([
    ['PORT', 'not-a-port'],
    ['ADMIN_PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['SESSION_TTL', 'forever'],
    ['TEMPORAL_METRICS_ADDRESS', 'nowhere'],
  ])('a bad %s stops the process with one line naming it', async (name, value) => {
    const { code, stderr } = await run('api', { [name]: value }).exited;
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${name}: `));
  });
});

describe('NODE_ENV=test outside the test suite', () => {
  it.each(['api', 'worker'] as const)('stops %s with one line unless ALLOW_TEST_ENV=true opts in', async (entry) => {
    const { code, stderr } = await run(entry, { ALLOW_TEST_ENV: 'false' }).exited;
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid configuration: NODE_ENV: test is for the test suite only (it seals histories with a published key, allows private webhook URLs and simulates live payments); set NODE_ENV=production, or ALLOW_TEST_ENV=true in a test run',
    ]);
  });
});

describe('FAILPOINTS outside the test suite', () => {
  it.each(['api', 'worker'] as const)('stops %s in production with one line naming it: its admin port could pause payments', async (entry) => {
    const { code, stderr } = await run(entry, { NODE_ENV: 'production', FAILPOINTS: 'true' }).exited;
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual(['Invalid configuration: FAILPOINTS is for the fault suite only (it lets the admin port pause payments); unset it']);
  });
});

describe('a start whose PostgreSQL does not answer', () => {
  // A password in the URL, to show it never reaches a line; port 1, where nothing listens.
  const unreachable = () => ({
    DATABASE_URL: 'postgres://payments:not-for-logs@127.0.0.1:1/payments',
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `entry-${randomUUID()}`,
    ADMIN_PORT: '0',
    PORT: '0',
    LOG_LEVEL: 'info',
  });

  it.each([
    ['api', 'api failed to start'],
    ['worker', 'worker failed'],
    ['migrate', 'migrate failed'],
  ] as const)('%s waits, one line a try, then gives up at STARTUP_TIMEOUT: exit 1 with one line naming what it waited for and why', async (entry, failed) => {
    const proc = run(entry, { ...unreachable(), STARTUP_TIMEOUT: '3s' });
    const { code, stderr } = await proc.exited;
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${failed}: gave up waiting for PostgreSQL at 127\\.0\\.0\\.1:1 after 3(\\.\\d)? s \\(STARTUP_TIMEOUT\\): connect ECONNREFUSED 127\\.0\\.0\\.1:1$`)),
    ]);
    const waiting = proc.output().split('\n').filter((line) => line.includes('waiting for PostgreSQL'));
    expect(waiting.length).toBeGreaterThanOrEqual(3); // after 0.5, 1 and 2 s (and the rest of the 3 s)
    expect(JSON.parse(waiting[0])).toMatchObject({ level: 40, msg: 'waiting for PostgreSQL at 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1; trying again in 0.5 s' });
    expect(`${proc.output()}${stderr}`).not.toContain('not-for-logs');
  }, 120_000);

  it('told to stop while it waits, it exits 0 at once: it has served and written nothing', async () => {
    const proc = run('api', unreachable());
    await started(proc, 'waiting for PostgreSQL');
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
    expect(proc.output()).toContain('stopped while starting');
  }, 240_000);
});

describe('a production API with no certificate', () => {
  it('stops with one line naming the settings to set, instead of serving the development certificate', async () => {
    const api = run('api', {
      NODE_ENV: 'production',
      DATABASE_URL: stack.databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: `entry-${randomUUID()}`,
      PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'no-certificate-')),
      // Everything else production asks for, so the certificate is all that is missing.
      WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
      PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    });
    let exited: { code: number | null; stderr: string } | undefined;
    void api.exited.then((e) => (exited = e));
    const until = Date.now() + 180_000;
    while (!exited && !api.output().includes('API listening') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (!exited) api.child.kill('SIGKILL');
    expect(api.output()).not.toContain('API listening');
    expect(exited?.code).toBe(1);
    expect(exited?.stderr.trim().split('\n')).toEqual([CERTIFICATE_REQUIRED]);
  }, 240_000);
});

describe('SIGTERM', () => {
  const common = () => ({
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `entry-${randomUUID()}`,
    LOG_LEVEL: 'info',
  });

  it('the API: closes its server, then its pools, and exits 0', async () => {
    const adminPort = await freePort();
    const api = run('api', {
      ...common(),
      PORT: String(await freePort()),
      ADMIN_PORT: String(adminPort),
      TLS_CERT_FILE: process.env.TEST_TLS_CERT!,
      TLS_KEY_FILE: process.env.TEST_TLS_KEY!,
    });
    await started(api, 'API listening');
    // Opted in, and said loudly at start: a warning line before anything else the process logs.
    expect(JSON.parse(api.output().split('\n')[0])).toMatchObject({ level: 40, msg: TEST_ENV_WARNING });
    expect(await getStatus(adminPort, '/readyz')).toBe(200);
    api.child.kill('SIGTERM');
    const { code } = await api.exited;
    expect(code).toBe(0);
    expect(api.output()).toContain('"step":"API server"');
    expect(api.output()).toContain('shutdown complete');
  }, 240_000);

  it('the worker: drains and exits 0', async () => {
    const worker = run('worker', { ...common(), ADMIN_PORT: String(await freePort()) });
    await started(worker, 'worker running');
    worker.child.kill('SIGTERM');
    const { code } = await worker.exited;
    expect(code).toBe(0);
    expect(worker.output()).toContain('"step":"worker"');
    expect(worker.output()).toContain('shutdown complete');
  }, 240_000);
});
