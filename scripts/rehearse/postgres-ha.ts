/**
 * `--postgres ha`: the app's PostgreSQL as production runs it when one machine may die (docs/scaling.md):
 * 3 etcd members (Debian's etcd-server), 3 PostgreSQL 15 nodes each under Patroni (Debian's) with
 * `synchronous_mode: true`, and HAProxy with a write port (Patroni's REST `/primary`) and a read port
 * (`/replica`). The app's DATABASE_URL goes through the write port. PostgreSQL 15 because Patroni needs
 * pg_basebackup, pg_rewind and pg_controldata, which the npm registry's PostgreSQL 18 does not ship.
 * Loopback only; every data directory under the rehearsal's.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ServiceProcess } from '../../test/support/processes.js';
import { lowPort, sleep, startProc, tcpOpen, until } from './proc.js';

export const PG_BIN = process.env.PATRONI_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const SCOPE = 'payments';
const PASSWORD = 'postgres';

interface Member { name: string; clientPort: number; peerPort: number; proc?: ServiceProcess }
interface Node { name: string; pgPort: number; restPort: number; config: string; dataDir: string; proc?: ServiceProcess }

export interface PostgresHa {
  /** Through HAProxy's write port: whichever node is primary now. */
  url: () => string;
  readUrl: () => string;
  primary: () => Promise<string | null>;
  members: () => Promise<{ name: string; role: string; state: string; lag?: unknown }[]>;
  nodes: Node[];
  etcd: Member[];
  /** kill -9 of the primary's Patroni, then of its postmaster; the node stays down until `startNode`. */
  killPrimary: () => Promise<{ killed: string; killedAt: number }>;
  startNode: (name: string) => void;
  /** Not spawnSync: the load runs in this process and must not stop while patronictl waits. */
  switchover: (candidate: string) => Promise<{ ok: boolean; output: string }>;
  patronictl: (args: string[]) => Promise<{ ok: boolean; output: string }>;
  stopEtcd: (name: string) => Promise<void>;
  startEtcd: (name: string) => void;
  stop: () => Promise<void>;
}

const env = () => ({ PATH: `${PG_BIN}:${process.env.PATH ?? ''}`, HOME: '/var/lib/postgresql', LANG: 'C.UTF-8' });

function patroniYaml(n: Node, etcdHosts: string, root: string): string {
  return `scope: ${SCOPE}
name: ${n.name}
log: {level: INFO}
restapi: {listen: 127.0.0.1:${n.restPort}, connect_address: 127.0.0.1:${n.restPort}}
etcd3: {hosts: [${etcdHosts}]}
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters: {wal_log_hints: 'on', max_connections: 300, max_wal_senders: 10, max_replication_slots: 10, hot_standby: 'on'}
  initdb: [{encoding: UTF8}, {locale: C.UTF-8}]
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 md5
    - host all all 127.0.0.1/32 md5
postgresql:
  listen: 127.0.0.1:${n.pgPort}
  connect_address: 127.0.0.1:${n.pgPort}
  data_dir: ${n.dataDir}
  bin_dir: ${PG_BIN}
  pgpass: ${path.join(root, `pgpass-${n.name}`)}
  authentication:
    superuser: {username: postgres, password: ${PASSWORD}}
    replication: {username: replicator, password: ${PASSWORD}}
    rewind: {username: postgres, password: ${PASSWORD}}
  parameters: {unix_socket_directories: '${root}'}
tags: {nofailover: false, noloadbalance: false, clonefrom: false, nosync: false}
`;
}

function haproxyCfg(nodes: Node[], writePort: number, readPort: number): string {
  const servers = nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`).join('\n');
  // shutdown-sessions: a node that stops answering /primary loses its sessions at once, so the app's pool
  // reconnects to the new primary instead of writing into a demoted one.
  const common = `  option httpchk\n  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions`;
  return `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
listen pg-write
  bind 127.0.0.1:${writePort}
${common}
  http-check send meth GET uri /primary
  http-check expect status 200
${servers}
listen pg-read
  bind 127.0.0.1:${readPort}
${common}
  http-check send meth GET uri /replica
  http-check expect status 200
  balance roundrobin
${servers}
`;
}

async function rest(port: number, urlPath: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, { signal: AbortSignal.timeout(2_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, body };
}

export async function startPostgresHa(root: string): Promise<PostgresHa> {
  const dir = path.join(root, 'pg-ha');
  const logDir = path.join(root, 'logs');
  mkdirSync(dir, { recursive: true });
  const pgUser = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const uid = Number(pgUser.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (pgUser.status !== 0) throw new Error('no postgres user: apt-get install postgresql-15 patroni etcd-server');
  chownSync(dir, uid, gid);

  const etcd: Member[] = [];
  for (let i = 1; i <= 3; i++) etcd.push({ name: `etcd-${i}`, clientPort: await lowPort(), peerPort: await lowPort() });
  const initialCluster = etcd.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',');
  const startEtcd = (name: string, state: 'new' | 'existing' = 'existing') => {
    const m = etcd.find((e) => e.name === name)!;
    m.proc = startProc(logDir, m.name, 'etcd', [
      '--name', m.name, '--data-dir', path.join(root, m.name),
      '--listen-client-urls', `http://127.0.0.1:${m.clientPort}`, '--advertise-client-urls', `http://127.0.0.1:${m.clientPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${m.peerPort}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${m.peerPort}`,
      '--initial-cluster', initialCluster, '--initial-cluster-state', state, '--initial-cluster-token', `payments-${path.basename(root)}`,
    ], { PATH: process.env.PATH ?? '', ETCD_UNSUPPORTED_ARCH: '', HOME: root });
  };
  for (const m of etcd) startEtcd(m.name, 'new');
  await Promise.all(etcd.map((m) => until(`${m.name} healthy`, async () => (await rest(m.clientPort, '/health')).status === 200, 60_000, m.proc)));
  const etcdHosts = etcd.map((m) => `'127.0.0.1:${m.clientPort}'`).join(', ');

  const nodes: Node[] = [];
  for (let i = 1; i <= 3; i++) {
    const name = `pg${i}`;
    const n: Node = { name, pgPort: await lowPort(), restPort: await lowPort(), config: path.join(dir, `${name}.yml`), dataDir: path.join(dir, name) };
    writeFileSync(n.config, patroniYaml(n, etcdHosts, dir));
    chownSync(n.config, uid, gid);
    nodes.push(n);
  }
  // setpriv execs Patroni itself (no shell between): our signals reach it, and PostgreSQL refuses root.
  const startNode = (name: string) => {
    const n = nodes.find((x) => x.name === name)!;
    n.proc = startProc(logDir, `patroni-${n.name}`, 'setpriv', ['--reuid', String(uid), '--regid', String(gid), '--init-groups', 'patroni', n.config], env(), dir);
  };
  // The first alone, so it is the one that bootstraps; the others clone from it.
  startNode('pg1');
  const members = async () => {
    for (const n of nodes) {
      const r = await rest(n.restPort, '/cluster').catch(() => null);
      if (r?.status === 200) return (r.body as { members: { name: string; role: string; state: string; lag?: unknown }[] }).members;
    }
    return [];
  };
  const primary = async () => {
    for (const n of nodes) if ((await rest(n.restPort, '/primary').catch(() => null))?.status === 200) return n.name;
    return null;
  };
  await until('pg1 bootstrapped as primary', async () => (await primary()) === 'pg1', 120_000, nodes[0].proc);
  startNode('pg2');
  startNode('pg3');
  await until('pg2 and pg3 streaming', async () => (await members()).filter((m) => m.state === 'streaming' || m.state === 'running').length === 3, 180_000);

  const writePort = await lowPort();
  const readPort = await lowPort();
  const cfg = path.join(dir, 'haproxy-postgres.cfg');
  writeFileSync(cfg, haproxyCfg(nodes, writePort, readPort));
  const check = spawnSync('haproxy', ['-c', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c rejected ${cfg}:\n${check.stdout}${check.stderr}`);
  const proxy = startProc(logDir, 'haproxy-postgres', 'haproxy', ['-W', '-db', '-f', cfg], { PATH: process.env.PATH ?? '' });
  await until('HAProxy write port open', () => tcpOpen(writePort), 20_000, proxy);
  const url = (db = 'payments', port = writePort) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${db}`;
  await until('the write port reaching the primary', async () => {
    const c = new pg.Client({ connectionString: url('postgres') });
    await c.connect();
    try {
      const exists = (await c.query(`select 1 from pg_database where datname = 'payments'`)).rowCount;
      if (!exists) await c.query('create database payments');
      return true;
    } finally {
      await c.end();
    }
  }, 30_000);

  const patronictl = (args: string[]) =>
    new Promise<{ ok: boolean; output: string }>((resolve) => {
      execFile('patronictl', ['-c', nodes[0].config, ...args], { encoding: 'utf8', env: env(), timeout: 90_000 }, (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}${stderr}`.trim() }));
    });
  return {
    url: () => url(),
    readUrl: () => url('payments', readPort),
    primary,
    members,
    nodes,
    etcd,
    killPrimary: async () => {
      const name = await primary();
      const n = nodes.find((x) => x.name === name);
      if (!n?.proc) throw new Error(`no primary to kill (${name})`);
      const postmaster = Number(readFileSync(path.join(n.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const killedAt = Date.now();
      n.proc.child.kill('SIGKILL');
      process.kill(postmaster, 'SIGKILL');
      return { killed: n.name, killedAt };
    },
    startNode,
    switchover: (candidate) => patronictl(['switchover', SCOPE, '--candidate', candidate, '--force']),
    patronictl,
    stopEtcd: async (name) => {
      const m = etcd.find((e) => e.name === name)!;
      m.proc?.child.kill('SIGKILL');
      await sleep(200);
    },
    startEtcd: (name) => startEtcd(name),
    stop: async () => {
      await proxy.stop(10_000);
      await Promise.all(nodes.map((n) => n.proc?.stop(30_000)));
      await Promise.all(etcd.map((m) => m.proc?.stop(10_000)));
    },
  };
}
