/**
 * The service's processes as an operator runs them (`node --import tsx src/main/api.ts`, `…/worker.ts`),
 * as real OS processes a fault test can SIGKILL and start again. Each one's output is kept in memory (to
 * wait for a line) and in a log file under the test root (to read after a failure).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { TEST_WEBHOOK_ENCRYPTION_KEY } from '../../support/stack.js';
import { freePort } from '../../../src/dev/free-port.js';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves once `text` appears in its output (or rejects when it exits or the time is up). */
  waitFor: (text: string, timeoutMs?: number) => Promise<void>;
  /** SIGKILL (no clean-up of any kind) unless told otherwise; resolves once the process is gone. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ServiceProcess>();


/** What every process of a fault test shares: one database, one Temporal, one task queue. */
export interface Wiring {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** Extra environment for every process (WEBHOOK_CA_FILE, WITHDRAWAL_PROCESSING_DELAY, …). */
  env?: Record<string, string>;
}

function baseEnv(wiring: Wiring, name: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    ALLOW_TEST_ENV: 'true',
    DATABASE_URL: wiring.databaseUrl,
    TEMPORAL_ADDRESS: wiring.temporalAddress,
    TEMPORAL_TASK_QUEUE: wiring.taskQueue,
    DATA_DIR: path.join(process.env.TEST_ROOT!, 'faults', name),
    WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
    LOG_LEVEL: 'info',
    TEMPORAL_SDK_LOG_LEVEL: 'WARN',
    // Load, soak and fault runs pay from 127.0.0.1 far faster than one buyer's address would.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    ...wiring.env,
  };
}

export function spawnProcess(name: string, entry: string, env: Record<string, string>): ServiceProcess {
  const logDir = path.join(process.env.TEST_ROOT!, 'faults', 'logs');
  mkdirSync(logDir, { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(path.join(logDir, `${name}-${child.pid}.log`));
  let output = '';
  const take = (chunk: Buffer) => {
    output += chunk;
    log.write(chunk);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(proc);
      log.end();
      resolve({ code, signal });
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const proc: ServiceProcess = {
    name,
    child,
    output: () => output,
    exited,
    async waitFor(text, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (gone) throw new Error(`${name} exited before printing "${text}":\n${output.slice(-3000)}`);
        if (Date.now() > until) throw new Error(`${name} did not print "${text}" in ${timeoutMs} ms:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill(signal = 'SIGKILL') {
      if (!gone) child.kill(signal);
      await exited;
    },
  };
  running.add(proc);
  return proc;
}

export interface ApiProcess extends ServiceProcess {
  origin: string;
  port: number;
  /** The operator's port (/metrics, /healthz), plain HTTP on loopback. */
  adminOrigin: string;
}

/** `src/main/api.ts` on `port` (a fixed port, so a restarted API answers at the same origin). */
export async function startApiProcess(wiring: Wiring, opts: { name?: string; port?: number; env?: Record<string, string> } = {}): Promise<ApiProcess> {
  const port = opts.port ?? (await freePort());
  const adminPort = await freePort();
  const name = opts.name ?? 'api';
  const proc = spawnProcess(name, 'src/main/api.ts', {
    ...baseEnv(wiring, name),
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    TLS_CERT_FILE: process.env.TEST_TLS_CERT!,
    TLS_KEY_FILE: process.env.TEST_TLS_KEY!,
    ...opts.env,
  });
  await proc.waitFor('API listening');
  return { ...proc, port, origin: `https://localhost:${port}`, adminOrigin: `http://127.0.0.1:${adminPort}` };
}

/** `src/main/worker.ts`: workflows, activities and the outbox relay. */
export async function startWorkerProcess(wiring: Wiring, opts: { name?: string; env?: Record<string, string> } = {}): Promise<ServiceProcess> {
  const name = opts.name ?? 'worker';
  const proc = spawnProcess(name, 'src/main/worker.ts', { ...baseEnv(wiring, name), ADMIN_PORT: String(await freePort()), ...opts.env });
  // A worker bundles its workflows (webpack) before it polls: seconds alone, over a minute when the
  // machine's two cores are busy.
  await proc.waitFor('worker running', 180_000);
  return proc;
}

/**
 * A worker wired like `src/main/worker.ts` whose named activities stop at a point (see fault-worker.ts),
 * e.g. `{ releaseReserve: 'after' }`: the test SIGKILLs it there.
 */
export async function startHoldingWorker(wiring: Wiring, holds: Record<string, 'before' | 'after'>, name = 'holding-worker'): Promise<ServiceProcess> {
  const proc = spawnProcess(name, 'test/faults/support/fault-worker.ts', {
    ...baseEnv(wiring, name),
    FAULT_HOLD: Object.entries(holds)
      .map(([activity, point]) => `${activity}:${point}`)
      .join(','),
  });
  await proc.waitFor('worker-ready');
  return proc;
}

/** For afterAll: no process of a failed test outlives the file. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}
