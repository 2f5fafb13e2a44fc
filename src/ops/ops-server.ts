import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { opsAuthorised, guarded, refuseOps } from './ops-auth.js';
import { registry } from './metrics.js';

/** A dependency `/readyz` checks: resolves when reachable, rejects (or times out) when not. */
export type ReadinessCheck = () => Promise<unknown>;

/**
 * A service the process mounts on this port under a path of its own: Temporal's codec endpoint in the API
 * process (src/temporal/codec-server.ts), the fault suite's failpoints where FAILPOINTS=true
 * (src/ops/failpoints.ts). It answers every method and every path under its prefix; the ops server only
 * routes, so it knows nothing of what it mounts.
 */
export interface OpsMount {
  path: string;
  serve: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  /**
   * `own`: the service checks a credential of its own and is served ahead of ADMIN_TOKEN (the codec: one
   * `Authorization` header cannot carry two tokens). `operator` (the default): behind ADMIN_TOKEN.
   */
  credential?: 'own' | 'operator';
}

export interface OpsServer {
  port: number;
  /** While starting: what the process waits for now (`/readyz` shows it as `checks.startup`); null: nothing, it is still starting. */
  waitingFor: (what: string | null) => void;
  /** The process serves: from now on `/readyz` answers from its checks. */
  serving: () => void;
  /** From now on `/readyz` answers 503, so a load balancer stops sending new requests before shutdown. */
  drain: () => void;
  close: () => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * The operator's port, apart from the API's: Prometheus `/metrics` (this process's registry, plus the
 * Temporal SDK's metrics when a worker exports them), `/healthz` (the process is alive) and `/readyz`
 * (every dependency answers). Plain HTTP on a private interface. The API process also mounts the
 * Temporal codec endpoint here (`/codec/decode`, src/main/runtime.ts), behind the operator's token: the
 * only route on this port that returns business data, decrypted for an operator's Web UI or CLI.
 */
export async function startOpsServer(opts: {
  host: string;
  port: number;
  log: Logger;
  checks: Record<string, ReadinessCheck>;
  /** host:port of the SDK's Prometheus exporter, when this process runs a worker that has one. */
  sdkMetricsAddress?: string;
  mounts?: OpsMount[];
  /** Opened before the process has connected: not ready until `serving()`, whatever the checks say. */
  starting?: boolean;
  /** ADMIN_TOKEN: asked of every request but the probes' (src/ops/ops-auth.ts). */
  token?: string;
}): Promise<OpsServer> {
  let draining = false;
  // What `/readyz` says of a start not yet done; null once the process serves.
  let startup: string | null = opts.starting ? 'starting' : null;
  const server = http.createServer(guarded((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    const mount = opts.mounts?.find((m) => path === m.path || path.startsWith(`${m.path}/`));
    if (mount?.credential === 'own') return mount.serve(req, res);
    if (!opsAuthorised(path, req.headers.authorization, opts.token)) return refuseOps(res);
    if (mount) return mount.serve(req, res);
    if (req.method !== 'GET') return send(405, JSON.stringify({ status: 'method_not_allowed' }));
    if (path === '/healthz') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      void readiness(opts.checks, startup, draining).then(({ ready, checks }) =>
        send(ready ? 200 : 503, JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks })),
      );
      return;
    }
    if (path === '/metrics') {
      void Promise.all([registry.metrics(), sdkMetrics(opts.sdkMetricsAddress)]).then(
        ([own, sdk]) => send(200, sdk ? `${own}\n${sdk}` : own, registry.contentType),
        (err) => {
          opts.log.warn({ err }, 'metrics collection failed');
          send(500, JSON.stringify({ status: 'error' }));
        },
      );
      return;
    }
    send(404, JSON.stringify({ status: 'not_found' }));
  }, (err) => opts.log.error({ err }, 'admin request failed')));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    waitingFor: (what) => {
      if (startup !== null) startup = what === null ? 'starting' : `waiting for ${what}`;
    },
    serving: () => {
      startup = null;
    },
    drain: () => {
      draining = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function readiness(checks: Record<string, ReadinessCheck>, startup: string | null, draining: boolean) {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'unreachable'] as const;
      }
    }),
  );
  const checksOut: Record<string, string> = Object.fromEntries(results);
  if (startup !== null) checksOut.startup = startup;
  if (draining) checksOut.shutdown = 'draining';
  return { ready: startup === null && !draining && results.every(([, r]) => r === 'ok'), checks: checksOut };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The SDK exporter's text, or nothing if it is not there (yet): one source being down must not hide the other. */
async function sdkMetrics(address: string | undefined): Promise<string> {
  if (!address) return '';
  try {
    const res = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}
