import { randomBytes } from 'node:crypto';
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/orm.js';
import { openDatabase } from '../src/main/database.js';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { startTemporalDevServer } from '../src/dev/temporal-dev-server.js';
import { freePort } from '../src/dev/free-port.js';
import { ensureDevCertificate } from '../src/dev/tls.js';

/** The dev server's SQLite settings change its throughput many times over, so they are fixed and recorded. */
export const TEMPORAL_BENCH_FLAGS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];


/** Embedded PostgreSQL and a Temporal dev server in a scratch directory, torn down afterwards. */
export async function startInfrastructure() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'payments-bench-'));
  chmodSync(root, 0o755);
  const db = await startEmbeddedPostgres({ databaseDir: path.join(root, 'pg'), port: await freePort() });
  const temporal = await startTemporalDevServer({
    dataDir: path.join(root, 'temporal'),
    port: await freePort(),
    uiPort: null,
    cliPath: process.env.TEMPORAL_CLI_PATH,
    extraArgs: TEMPORAL_BENCH_FLAGS,
  });
  const orm = await openDatabase(db.url());
  await migrate(orm);
  const tls = await ensureDevCertificate(path.join(root, 'tls'));
  const settings = await orm.em
    .getConnection()
    .execute<{ name: string; setting: string }[]>(
      `select name, setting from pg_settings where name in ('server_version', 'shared_buffers', 'synchronous_commit', 'fsync', 'max_connections', 'wal_level', 'work_mem')`,
    );
  return {
    root,
    databaseUrl: db.url(),
    temporalAddress: temporal.address,
    temporalArgs: temporal.args ?? [],
    postgresSettings: Object.fromEntries(settings.map((s) => [s.name, s.setting])),
    tls,
    ca: readFileSync(tls.caFile),
    orm,
    stop: async () => {
      await orm.close();
      await temporal.stop();
      await db.stop();
      // The data (6 GB after a history run at a million sessions) goes with the servers; the rest stays.
      for (const data of ['pg', 'temporal']) rmSync(path.join(root, data), { recursive: true, force: true });
    },
  };
}

/** The API's and worker's environment in the benchmark and its probes: production, on this run's infrastructure. */
export function serviceEnv(infra: { databaseUrl: string; root: string; tls: { certFile: string; keyFile: string; caFile: string } }) {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: infra.databaseUrl,
    TLS_CERT_FILE: infra.tls.certFile,
    TLS_KEY_FILE: infra.tls.keyFile,
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(infra.root, 'data'),
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // One ring for every process of the run: the API seals workflow inputs the worker must open.
    PAYLOAD_ENCRYPTION_KEYS: `bench-1:${randomBytes(32).toString('base64')}`,
    // The fan-out scenario's receivers run on this machine, under the benchmark's own CA.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    WEBHOOK_CA_FILE: infra.tls.caFile,
    // Long enough that (d)'s withdrawals are still asleep while it is measured, short enough that the
    // wait for them to finish before the next measurement stays short.
    WITHDRAWAL_PROCESSING_DELAY: '20s',
    // Every simulated buyer pays from 127.0.0.1: the per-address public limit would shape the results.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
  };}

/**
 * The production build the API and worker run from (`scripts/build.ts`: compiled JavaScript and the
 * prebuilt workflow bundle), written to .data/bench-dist inside the repository so its imports resolve
 * in node_modules, and so a concurrent `npm run build` or rehearsal is not disturbed. `BENCH_DIST=<dir>`
 * names a build to use as it is.
 */
export function buildDist(): { dir: string; buildMs: number } {
  if (process.env.BENCH_DIST) return { dir: path.resolve(process.env.BENCH_DIST), buildMs: 0 };
  const dir = path.resolve('.data', 'bench-dist');
  const started = Date.now();
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out-dir', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0) throw new Error(`scripts/build.ts failed (${res.status})`);
  return { dir, buildMs: Date.now() - started };
}

/**
 * A V8 option set split as a start script gives it: what NODE_OPTIONS takes (the heap sizes) there, and
 * the flags it refuses (`--single-threaded-gc`) on the command line (`spawnService`'s `execArgv`).
 */
export function nodeOptionsAndFlags(options: string): { nodeOptions: string[]; flags: string[] } {
  const all = options.split(' ').filter(Boolean);
  const taken = (flag: string) => /^--(max-old-space-size|max-semi-space-size|v8-pool-size)=/.test(flag);
  return { nodeOptions: all.filter(taken), flags: all.filter((flag) => !taken(flag)) };
}

/**
 * Forks an entry point: a compiled `.js` one (dist/) under plain node, a TypeScript one (the floors)
 * under tsx. Resolves once it says `ready` over IPC, or once `readyPort`
 * accepts connections, or (`readyPort` 0) straight away for a process with no port of its own.
 */
export async function spawnService(script: string, env: Record<string, string>, readyPort?: number, execArgv: string[] = []): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: every service writes a V8 CPU profile there when it exits (open it in Chrome's
  // DevTools or speedscope). NODE_OPTIONS refuses --cpu-prof, hence the flag here.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(script, [], {
    // `execArgv`: V8 flags NODE_OPTIONS refuses (a probe's variants), given on the command line as a start script would.
    execArgv: [...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), ...profile, ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.once('message', (m) => m === 'ready' && resolve());
    if (readyPort === 0) resolve();
    if (readyPort) {
      const poll = () =>
        connect(readyPort, '127.0.0.1')
          .once('connect', function (this: Socket) {
            this.destroy();
            resolve();
          })
          .once('error', () => setTimeout(poll, 200));
      poll();
    }
  });
  return child;
}

/** SIGTERM, then the process's own graceful shutdown, bounded (it is killed outright after 15 s). */
export async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Resets a process's high-water mark (VmHWM) to its current RSS, so a peak can be taken under one scenario. */
export function resetPeakRss(pid: number | undefined): void {
  if (!pid) return;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not permitted here: the peak then covers the run so far, which the report says.
  }
}

/** Peak resident set size of a process, from the kernel's high-water mark. */
export function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Math.round(Number(hwm[1]) / 1024) : null;
  } catch {
    return null;
  }
}
