/**
 * The service as production runs it, from the production build: `node dist/migrate.js` once, then two
 * `node dist/api.js` and two `node dist/worker.js`, behind HAProxy (Debian's) with deploy/haproxy's
 * configuration, TLS ending at the proxy. Each process can be rolled (SIGTERM, wait, start, wait ready).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { ServiceProcess } from '../../test/support/processes.js';
import { httpOk, lowPort, startProc, until } from './proc.js';
import { DEPLOY, REPO } from './temporal.js';

/** The entry points docker-compose.yml and the Dockerfile run (the compose test checks they agree). */
export const ENTRY_POINTS = { api: 'dist/api.js', worker: 'dist/worker.js', migrate: 'dist/migrate.js' } as const;

export interface Service {
  name: string;
  kind: 'api' | 'worker';
  port?: number;
  adminPort: number;
  proc: ServiceProcess;
}

export interface Services {
  apis: Service[];
  workers: Service[];
  proxyOrigin: string;
  /** Rolls one process: SIGTERM, wait for its exit, start it again, wait until /readyz says 200. */
  roll: (service: Service) => Promise<{ downMs: number; upMs: number; clean: boolean }>;
  stop: () => Promise<void>;
}

export interface Wiring {
  root: string;
  databaseUrl: string;
  temporalAddress: string;
  /** The proxy's certificate (and key), and the receiver's CA the workers trust for webhooks. */
  tls: { certFile: string; keyFile: string; caFile: string };
  webhookCaFile: string;
  encryptionKey: string;
  /** Temporal payloads sealed as compose requires (PAYLOAD_ENCRYPTION_KEYS), one ring for every process. */
  payloadKeys: string;
}

function baseEnv(w: Wiring, name: string, proxyPort: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/',
    NODE_ENV: 'production',
    DATA_DIR: path.join(w.root, name),
    DATABASE_URL: w.databaseUrl,
    TEMPORAL_ADDRESS: w.temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: 'payments',
    WEBHOOK_ENCRYPTION_KEY: w.encryptionKey,
    PAYLOAD_ENCRYPTION_KEYS: w.payloadKeys,
    WEBHOOK_CA_FILE: w.webhookCaFile,
    // The merchant's receiver is on this machine, which production refuses unless told.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    // Short, so withdrawals finish (and cancels race processing) within the run.
    WITHDRAWAL_PROCESSING_DELAY: '2s',
    // All traffic comes from one address here; the per-address limit has tests of its own.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
    CHECKOUT_BASE_URL: `https://localhost:${proxyPort}`,
    LOG_LEVEL: 'info',
    TEMPORAL_SDK_LOG_LEVEL: 'WARN',
  };
}

export async function startServices(w: Wiring): Promise<Services> {
  const logDir = path.join(w.root, 'logs');
  const proxyPort = await lowPort();
  const migrate = spawnSync(process.execPath, [ENTRY_POINTS.migrate], { cwd: REPO, env: baseEnv(w, 'migrate', proxyPort), encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`node ${ENTRY_POINTS.migrate} failed:\n${migrate.stdout}\n${migrate.stderr}`);

  let starts = 0;
  const launch = (s: Omit<Service, 'proc'>): ServiceProcess => {
    const env = { ...baseEnv(w, s.name, proxyPort), ADMIN_PORT: String(s.adminPort) };
    if (s.kind === 'api') {
      // Behind the proxy: plain HTTP on loopback, X-Forwarded-* believed from the proxy's address only.
      Object.assign(env, { HOST: '127.0.0.1', PORT: String(s.port), TRUST_PROXY: 'true', TRUSTED_PROXIES: '127.0.0.1' });
    } else {
      Object.assign(env, { TEMPORAL_METRICS_ADDRESS: 'off', WORKER_SHUTDOWN_GRACE: '20s' });
    }
    return startProc(logDir, `${s.name}-${++starts}`, process.execPath, ['--enable-source-maps', ENTRY_POINTS[s.kind]], env, REPO);
  };
  const ready = (s: Service) => until(`${s.name} ready`, () => httpOk(s.adminPort, '/readyz'), 90_000, s.proc);

  const make = async (kind: 'api' | 'worker', n: number): Promise<Service> => {
    const spec = { name: `${kind}-${n}`, kind, port: kind === 'api' ? await lowPort() : undefined, adminPort: await lowPort() };
    return { ...spec, proc: launch(spec) };
  };
  const apis = [await make('api', 1), await make('api', 2)];
  const workers = [await make('worker', 1), await make('worker', 2)];
  await Promise.all([...apis, ...workers].map(ready));

  // HAProxy wants the certificate and its key in one file.
  const pem = path.join(w.root, 'proxy.pem');
  writeFileSync(pem, `${readFileSync(w.tls.certFile, 'utf8').trim()}\n${readFileSync(w.tls.keyFile, 'utf8').trim()}\n`, { mode: 0o600 });
  const proxyEnv = {
    PATH: process.env.PATH ?? '',
    HTTPS_BIND: `127.0.0.1:${proxyPort}`,
    TLS_PEM: pem,
    API_1: `127.0.0.1:${apis[0].port}`,
    API_1_ADMIN: String(apis[0].adminPort),
    API_2: `127.0.0.1:${apis[1].port}`,
    API_2_ADMIN: String(apis[1].adminPort),
  };
  const cfg = path.join(DEPLOY, 'haproxy', 'haproxy.cfg');
  const check = spawnSync('haproxy', ['-c', '-f', cfg], { env: proxyEnv, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c rejected ${cfg}:\n${check.stdout}${check.stderr}`);
  // -db: stay in the foreground (the rehearsal supervises it); -W: master-worker, as systemd runs it.
  const proxy = startProc(logDir, 'haproxy', 'haproxy', ['-W', '-db', '-f', cfg], proxyEnv);
  // An answer over TLS with this run's certificate: the port alone could be someone else's listener.
  const ca = readFileSync(w.tls.caFile);
  const answers = () =>
    new Promise<boolean>((resolve) => {
      const req = https.get({ host: '127.0.0.1', port: proxyPort, servername: 'localhost', path: '/', ca, agent: false, timeout: 3_000 }, (res) => {
        res.resume();
        resolve(proxy.child.exitCode === null && typeof res.statusCode === 'number');
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
    });
  await until('HAProxy serving TLS', answers, 20_000, proxy);

  return {
    apis,
    workers,
    proxyOrigin: `https://localhost:${proxyPort}`,
    roll: async (s) => {
      const t0 = Date.now();
      const clean = await s.proc.stop();
      const downMs = Date.now() - t0;
      s.proc = launch(s);
      const upMs = await ready(s);
      return { downMs, upMs, clean };
    },
    stop: async () => {
      await proxy.stop(10_000);
      await Promise.all([...apis, ...workers].map((s) => s.proc.stop()));
    },
  };
}
