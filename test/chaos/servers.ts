/**
 * The chaos run's PostgreSQL and Temporal: separate processes of its own (as the fault matrix has them),
 * on fixed ports and data directories, so each can be killed and started again on the same state. The
 * embedded server and the dev server are started by their src/dev modules; the crash itself is a signal
 * to the server's own process id (its postmaster.pid; the dev server found by its database file), as an
 * operator's `kill -9` or `pg_ctl stop -m immediate` would send it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (a postmaster's backends), from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the parent's pid is the 2nd field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The processes whose command line contains `text` (the dev server's database file names its process). */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function gone(pids: number[], timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (pids.some(alive)) {
    if (Date.now() > until) throw new Error(`processes ${pids.filter(alive).join(', ')} still alive after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** Starts `start` again until it succeeds: a server killed moments ago may still hold its port or its shared memory. */
async function startAgain<T>(what: string, start: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await start();
    } catch (err) {
      if (Date.now() > until) throw new Error(`${what} would not start again in ${timeoutMs / 1000} s: ${(err as Error).message}`);
      await sleep(1_000);
    }
  }
}

export interface ChaosServers {
  databaseUrl: string;
  temporalAddress: string;
  /** SIGKILL to the dev server; resolves once it is gone. */
  killTemporal: () => Promise<void>;
  startTemporal: () => Promise<void>;
  /** SIGQUIT (immediate: no checkpoint, recovery at the next start) or SIGKILL to the postmaster and its backends. */
  crashPostgres: (how: 'immediate' | 'kill') => Promise<void>;
  startPostgres: () => Promise<void>;
  stop: () => Promise<void>;
}

export async function startChaosServers(dir: string): Promise<ChaosServers> {
  const ports = { db: await freePort(), temporal: await freePort() };
  const dbDir = path.join(dir, 'pg');
  const temporalDir = path.join(dir, 'temporal');
  const startDb = () => startEmbeddedPostgres({ databaseDir: dbDir, port: ports.db, database: 'payments' });
  const startDev = () => startTemporalDevServer({ dataDir: temporalDir, port: ports.temporal, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });
  let db: EmbeddedDatabase = await startDb();
  let temporal: TemporalDevServer | null = await startDev();
  let dbUp = true;
  const temporalFile = path.join(temporalDir, 'temporal.sqlite');

  return {
    databaseUrl: db.url(),
    temporalAddress: temporal.address,
    async killTemporal() {
      const pids = processesNaming(temporalFile);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      await gone(pids);
      temporal = null;
    },
    async startTemporal() {
      temporal = await startAgain('Temporal', startDev);
    },
    async crashPostgres(how) {
      const pidFile = path.join(db.dataDir, 'postmaster.pid');
      if (!existsSync(pidFile)) throw new Error(`no postmaster.pid in ${db.dataDir}`);
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      const backends = childrenOf(pid);
      process.kill(pid, how === 'immediate' ? 'SIGQUIT' : 'SIGKILL');
      // A killed postmaster's backends notice its death on their own, but may keep its shared memory a
      // while; killed with it, as an operator clearing a crashed server does, the next start needs no wait.
      if (how === 'kill') for (const b of backends) if (alive(b)) process.kill(b, 'SIGKILL');
      await gone([pid, ...backends]);
      dbUp = false;
    },
    async startPostgres() {
      db = await startAgain('PostgreSQL', startDb);
      dbUp = true;
    },
    async stop() {
      await temporal?.stop();
      if (dbUp) await db.stop();
    },
  };
}
