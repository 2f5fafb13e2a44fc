/**
 * `npm run rehearse -- --temporal cluster`: Temporal as a cluster of its own services (docs/scaling.md),
 * each host a process of the same binary with the same deploy/temporal/config/production.yaml as the
 * single server, running the one service `start --service=…` names: 2 frontends behind HAProxy
 * (deploy/haproxy/temporal-frontend.cfg), 2 history hosts, 2 matching hosts, 1 internal worker, on a
 * fresh database with CLUSTER_SHARDS history shards. Each host has its own block of ports (its own
 * TEMPORAL_PORT_BASE) and broadcasts 127.0.0.1 with them; the hosts find each other through the
 * cluster_membership table. The API and workers, the CLI and the Web UI reach the frontends' proxy.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { ServiceProcess } from '../../test/support/processes.js';
import { freePortBlock, httpOk, lowPort, startProc, tcpOpen, until } from './proc.js';
import { DEPLOY, deployScripts, REPO, type TemporalBinaries } from './temporal.js';

/** Fixed when the database is created: 16 so two history hosts hold several each and a move shows. */
export const CLUSTER_SHARDS = 16;
/** The layout, host by host: docker-compose.yml's temporal-* services match it (test/ops/deploy-files.test.ts). */
export const CLUSTER_LAYOUT = { frontend: 2, history: 2, matching: 2, worker: 1 } as const;
export type Role = keyof typeof CLUSTER_LAYOUT;

/** One host's ports from its base (production.yaml): its service's gRPC and membership, and metrics. */
const OFFSETS = [0, 1, 2, 6, 10, 100, 101, 102, 106, 200];
/** Each service's gRPC port; the internal worker serves none (it is a client of the frontends), only metrics. */
const GRPC: Record<Role, number> = { frontend: 0, history: 1, matching: 2, worker: 6 };

export interface TemporalHost {
  name: string;
  role: Role;
  base: number;
  metricsPort: number;
  proc: ServiceProcess;
  /** Starts it again after a kill or a stop (same ports, same name with the next start number). */
  start: () => void;
}

export interface TemporalCluster {
  address: string;
  uiOrigin: string;
  hosts: TemporalHost[];
  /** Waits until this host's service answers: a frontend's cluster health SERVING, another's gRPC port and metrics. */
  ready: (host: TemporalHost) => Promise<number>;
  stop: () => Promise<void>;
}

export async function startTemporalCluster(opts: { root: string; bins: TemporalBinaries; db: { port: number; user: string; password: string } }): Promise<TemporalCluster> {
  const { root, bins } = opts;
  const logDir = path.join(root, 'logs');
  const proxyPort = await lowPort();
  const address = `127.0.0.1:${proxyPort}`;
  const { env: common, script } = deployScripts(root, bins, opts.db, address, {
    TEMPORAL_FRONTEND_ADDRESS: address,
    TEMPORAL_HISTORY_SHARDS: String(CLUSTER_SHARDS),
  });
  script('setup-schema.sh');

  const hosts: TemporalHost[] = [];
  for (const [role, n] of Object.entries(CLUSTER_LAYOUT) as [Role, number][]) {
    for (let i = 1; i <= n; i++) {
      const base = await freePortBlock(OFFSETS);
      const env = { ...common, TEMPORAL_PORT_BASE: String(base), TEMPORAL_METRICS_PORT: String(base + 200) };
      const name = `temporal-${role}-${i}`;
      let starts = 0;
      const args = ['--root', REPO, '--config', 'deploy/temporal/config', '--env', 'production', '--allow-no-auth', 'start', `--service=${role}`];
      const host: TemporalHost = {
        name,
        role,
        base,
        metricsPort: base + 200,
        proc: undefined as unknown as ServiceProcess,
        start: () => {
          host.proc = startProc(logDir, `${name}-${++starts}`, bins.server, args, env);
        },
      };
      hosts.push(host);
    }
  }
  for (const h of hosts) h.start();

  const frontends = hosts.filter((h) => h.role === 'frontend');
  const proxyEnv = { PATH: process.env.PATH ?? '', TEMPORAL_BIND: address, FRONTEND_1: `127.0.0.1:${frontends[0].base}`, FRONTEND_2: `127.0.0.1:${frontends[1].base}` };
  const cfg = path.join(DEPLOY, 'haproxy', 'temporal-frontend.cfg');
  const check = spawnSync('haproxy', ['-c', '-f', cfg], { env: proxyEnv, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c rejected ${cfg}:\n${check.stdout}${check.stderr}`);
  const proxy = startProc(logDir, 'haproxy-temporal', 'haproxy', ['-W', '-db', '-f', cfg], proxyEnv);

  const health = (addr: string) => () => {
    const res = spawnSync(bins.cli, ['operator', 'cluster', 'health', '--address', addr], { encoding: 'utf8', timeout: 10_000 });
    return Promise.resolve(res.status === 0 && /SERVING/.test(res.stdout));
  };
  const ready = (h: TemporalHost) =>
    h.role === 'frontend'
      ? until(`${h.name} serving`, health(`127.0.0.1:${h.base}`), 120_000, h.proc)
      : until(`${h.name} listening`, async () => (h.role === 'worker' || (await tcpOpen(h.base + GRPC[h.role]))) && (await httpOk(h.metricsPort, '/metrics')), 120_000, h.proc);
  await Promise.all(hosts.map(ready));
  await until('the frontends serving through their proxy', health(address), 60_000, proxy);
  script('register.sh');

  const uiPort = await lowPort();
  const ui = startProc(logDir, 'temporal-ui', bins.ui, ['--root', REPO, '--config', 'deploy/temporal-ui/config', '--env', 'production', 'start'], {
    ...common,
    TEMPORAL_UI_BIND: '127.0.0.1',
    TEMPORAL_UI_PORT: String(uiPort),
  });
  await until('the Temporal UI serving', () => httpOk(uiPort, '/api/v1/settings'), 60_000, ui);

  return {
    address,
    uiOrigin: `http://127.0.0.1:${uiPort}`,
    hosts,
    ready,
    stop: async () => {
      await ui.stop(10_000);
      await proxy.stop(10_000);
      await Promise.all(hosts.map((h) => h.proc.stop(20_000)));
    },
  };
}
