import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What a running `npm start` leaves in its data directory for the commands beside it:
 * - `demo.env`, the shell settings of this clone's service (`. .data/demo.env`), which the README's
 *   examples use and the example shop reads, so neither needs the port or the key typed in;
 * - `banner.json`, the banner, which `npm run admin -- banner` prints again, and the address of the
 *   Temporal it runs on, which the admin CLI connects to (as it finds the embedded PostgreSQL from its
 *   data directory), whatever port `npm start` was given.
 * Both hold the demo test key, so only their owner may read them; both go when `npm start` stops.
 */
export interface RunningService {
  apiUrl: string;
  testKey: string;
  businessId: string;
  /** The development CA that signs the API's certificate; null when TLS_CERT_FILE names another. */
  caFile: string | null;
  banner: string;
  /** The Temporal frontend (`host:port`) the service runs on: its dev server, or TEMPORAL_ADDRESS. */
  temporalAddress: string;
}

const demoEnvFile = (dataDir: string) => path.join(dataDir, 'demo.env');
const bannerFile = (dataDir: string) => path.join(dataDir, 'banner.json');

/**
 * Single quotes keep a path with spaces one word for the shell and for Node's env-file parser alike.
 * `export` so that a program started from the shell after `. .data/demo.env` sees them too; Node's
 * `--env-file` and `process.loadEnvFile` read the `export` prefix as well.
 */
const quoted = (value: string) => {
  if (value.includes("'")) throw new Error(`cannot write ${value} to demo.env: it contains a single quote`);
  return `'${value}'`;
};

export function writeRunningService(dataDir: string, service: RunningService): void {
  const settings = {
    PAYMENTS_API_URL: service.apiUrl,
    PAYMENTS_API_KEY: service.testKey,
    PAYMENTS_BUSINESS_ID: service.businessId,
    ...(service.caFile ? { PAYMENTS_CA_FILE: service.caFile } : {}),
  };
  const lines = [
    '# Written by `npm start` for the service it runs; removed when it stops.',
    '# In a shell: . .data/demo.env   For a Node program: node --env-file=.data/demo.env app.js',
    ...Object.entries(settings).map(([name, value]) => `export ${name}=${quoted(value)}`),
  ];
  writeFileSync(demoEnvFile(dataDir), `${lines.join('\n')}\n`, { mode: 0o600 });
  const running: RunningFile = { pid: process.pid, banner: service.banner, temporalAddress: service.temporalAddress };
  writeFileSync(bannerFile(dataDir), JSON.stringify(running), { mode: 0o600 });
}

export function removeRunningService(dataDir: string): void {
  rmSync(demoEnvFile(dataDir), { force: true });
  rmSync(bannerFile(dataDir), { force: true });
}

interface RunningFile {
  pid: number;
  banner: string;
  /** Absent in a file written before the admin CLI read it. */
  temporalAddress?: string;
}

/** What the `npm start` running on this data directory left there, or null when none is. */
export function runningService(dataDir: string): (RunningFile & { dataDir: string }) | null {
  if (!existsSync(bannerFile(dataDir))) return null;
  const running = JSON.parse(readFileSync(bannerFile(dataDir), 'utf8')) as RunningFile;
  try {
    process.kill(running.pid, 0); // still there (a stale file is left only by a process killed outright)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return null;
  }
  return { ...running, dataDir: path.resolve(dataDir) };
}

/** The banner of the `npm start` running on this data directory, or null when none is. */
export const runningBanner = (dataDir: string): string | null => runningService(dataDir)?.banner ?? null;
