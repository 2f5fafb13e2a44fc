/**
 * A real Temporal server (go.temporal.io/server, built by scripts/provision-temporal.sh) on its own
 * PostgreSQL, set up and registered by the same deploy/temporal scripts docker-compose.yml runs, and
 * started with the same deploy/temporal/config/production.yaml. Plus the Web UI (ui-server) bound to
 * 127.0.0.1 only, with deploy/temporal-ui/config/production.yaml.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { ServiceProcess } from '../../test/support/processes.js';
import { freePortBlock, httpOk, sleep, startProc, tcpOpen, until } from './proc.js';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const DEPLOY = path.join(REPO, 'deploy');

export interface TemporalBinaries {
  server: string;
  sqlTool: string;
  cli: string;
  ui: string;
  /** The go.temporal.io/server module source: its schema/postgresql/v12. */
  schemaDir: string;
}

export function binariesFromEnv(): TemporalBinaries {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: run through \`npm run rehearse\` (scripts/run.sh provisions it)`);
    return value;
  };
  return {
    server: need('TEMPORAL_SERVER_PATH'),
    sqlTool: need('TEMPORAL_SQL_TOOL_PATH'),
    cli: need('TEMPORAL_CLI_PATH'),
    ui: need('TEMPORAL_UI_SERVER_PATH'),
    schemaDir: need('TEMPORAL_SCHEMA_DIR'),
  };
}

export interface TemporalServer {
  address: string;
  uiOrigin: string;
  /** SIGTERM, wait for the exit, stay down `holdMs`, start, wait until it serves; the two durations in ms. */
  restart: (holdMs?: number) => Promise<{ downMs: number; upMs: number }>;
  stop: () => Promise<void>;
}

/** The server's ports, all moved by one base (production.yaml): frontend, history, matching, worker, membership, http, metrics, and the UI. */
const OFFSETS = [0, 1, 2, 6, 10, 100, 101, 102, 106, 200, 300];

/** `ui: false` (the benchmark's real-server mode) starts the server alone; `bins.ui` is then unused. */
export async function startTemporal(opts: { root: string; bins: TemporalBinaries; db: { port: number; user: string; password: string }; ui?: boolean }): Promise<TemporalServer> {
  const { root, bins } = opts;
  const logDir = path.join(root, 'logs');
  // deploy/temporal/*.sh call the tools by their image names; here those names point at the built binaries.
  const base = await freePortBlock(OFFSETS);
  const address = `127.0.0.1:${base}`;
  const { env, script } = deployScripts(root, bins, opts.db, address, {
    TEMPORAL_PORT_BASE: String(base),
    TEMPORAL_METRICS_PORT: String(base + 200),
  });
  script('setup-schema.sh');

  // Both servers join --root and --config, so the config directory is given relative to the repository.
  const args = ['--root', REPO, '--config', 'deploy/temporal/config', '--env', 'production', '--allow-no-auth', 'start'];
  const health = () => {
    const res = spawnSync(bins.cli, ['operator', 'cluster', 'health', '--address', address], { encoding: 'utf8', timeout: 10_000 });
    return Promise.resolve(res.status === 0 && /SERVING/.test(res.stdout));
  };
  let server: ServiceProcess;
  let starts = 0;
  const launch = async () => {
    server = startProc(logDir, `temporal-server-${++starts}`, bins.server, args, env);
    return until('the Temporal server serving', health, 120_000, server);
  };
  await launch();
  script('register.sh');

  // The UI: 127.0.0.1 only (docs/runbook.md, "The Temporal Web UI"): it has no login of its own here.
  const uiPort = base + 300;
  const ui = opts.ui === false ? null : startProc(logDir, 'temporal-ui', bins.ui, ['--root', REPO, '--config', 'deploy/temporal-ui/config', '--env', 'production', 'start'], {
    ...env,
    TEMPORAL_UI_BIND: '127.0.0.1',
    TEMPORAL_UI_PORT: String(uiPort),
  });
  if (ui) await until('the Temporal UI serving', () => httpOk(uiPort, '/api/v1/settings'), 60_000, ui);

  return {
    address,
    uiOrigin: `http://127.0.0.1:${uiPort}`,
    restart: async (holdMs = 0) => {
      const t0 = Date.now();
      if (!(await server.stop())) throw new Error('the Temporal server did not stop within its grace period');
      await sleep(holdMs);
      const downMs = Date.now() - t0;
      const upMs = await launch();
      return { downMs, upMs };
    },
    stop: async () => {
      await ui?.stop(10_000);
      await server.stop();
    },
  };
}

/** Whether the UI answers on any address but loopback (it must not: docs/decisions.md, The Temporal UI in production). */
export async function uiReachableOutsideLoopback(uiOrigin: string): Promise<string | null> {
  const { networkInterfaces } = await import('node:os');
  const port = Number(new URL(uiOrigin).port);
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.internal || a.family !== 'IPv4') continue;
      const open = await new Promise<boolean>((resolve) => {
        import('node:net').then(({ connect }) => {
          const s = connect({ host: a.address, port });
          s.once('connect', () => (s.destroy(), resolve(true)));
          s.once('error', () => resolve(false));
        });
      });
      if (open) return a.address;
    }
  }
  return null;
}

export { tcpOpen };

/**
 * The environment deploy/temporal's scripts and production.yaml read, as compose sets it, for a server on
 * `address` with the database `db`; `extra` adds what one topology sets apart. deploy/temporal/*.sh call
 * the tools by their image names; here those names point at the built binaries. `script` runs one of them.
 */
export function deployScripts(
  root: string,
  bins: TemporalBinaries,
  db: { port: number; user: string; password: string },
  address: string,
  extra: Record<string, string>,
) {
  const binDir = path.join(root, 'bin');
  mkdirSync(binDir, { recursive: true });
  symlinkSync(bins.sqlTool, path.join(binDir, 'temporal-sql-tool'));
  symlinkSync(bins.cli, path.join(binDir, 'temporal'));
  const env: Record<string, string> = {
    PATH: `${binDir}:${process.env.PATH}`,
    HOME: process.env.HOME ?? '/',
    SQL_HOST: '127.0.0.1',
    SQL_PORT: String(db.port),
    SQL_USER: db.user,
    SQL_PASSWORD: db.password,
    TEMPORAL_SCHEMA_DIR: bins.schemaDir,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_DB_HOST: '127.0.0.1',
    TEMPORAL_DB_PORT: String(db.port),
    TEMPORAL_DB_USER: db.user,
    TEMPORAL_DB_PASSWORD: db.password,
    TEMPORAL_BIND_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_DYNAMIC_CONFIG: path.join(DEPLOY, 'temporal', 'dynamicconfig.yaml'),
    ...extra,
  };
  const script = (name: string) => {
    const res = spawnSync('sh', [path.join(DEPLOY, 'temporal', name)], { env, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`deploy/temporal/${name} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  };
  return { env, script };
}
