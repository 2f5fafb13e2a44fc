import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { startOpsServer, type OpsMount, type OpsServer } from '../ops/ops-server.js';
import { FAILPOINTS_PATH, serveFailpoints } from '../ops/failpoints.js';
import { CODEC_PATH, serveCodec, type CodecEndpoint } from '../temporal/codec-server.js';
import { isLoopbackHost } from '../loopback.js';
import { EncryptionCodec, payloadKeysFor } from '../temporal/payload-codec.js';
import { stripeKeyReadiness } from '../modules/stripe/index.js';

/** What a process has connected so far: the ops port's checks read it at each request. */
export interface Connections {
  orm?: MikroORM;
  temporal?: Client;
}

const notYet = () => Promise.reject(new Error('not connected yet'));

/**
 * The ops port of a process (src/ops/ops-server.ts; ADMIN_HOST, ADMIN_PORT and ADMIN_TOKEN, the names
 * deployments know it by): `/metrics`, `/healthz`, and `/readyz` checking the database and Temporal
 * (and, with ACQUIRER=stripe, that Stripe has not refused the key).
 * A process that runs a worker also serves the Temporal SDK's metrics there. An API or worker process
 * opens it first, `starting`, before it connects (`connections` filled in as it does): an operator and a
 * supervisor then see it alive and not ready, and what it waits for, instead of no port at all.
 */
export function startOpsPort(opts: {
  config: Config;
  connections: Connections;
  log: Logger;
  worker: boolean;
  /** Serve the Temporal codec endpoint (`/codec/decode`) the Web UI decrypts histories through: the API process does. */
  codec?: boolean;
  /** Not ready until `serving()`, whatever the checks say: the process is still starting. */
  starting?: boolean;
}): Promise<OpsServer> {
  const { config, connections, log } = opts;
  const codec: CodecEndpoint | undefined = opts.codec
    ? {
        codec: new EncryptionCodec(payloadKeysFor(config)),
        authToken: config.codec.authToken,
        // `npm start` on loopback only: its UI has no login to pass a token with (docs/decisions.md).
        openWithoutToken: config.env === 'development' && isLoopbackHost(config.admin.host),
        corsOrigins: config.codec.corsOrigins,
      }
    : undefined;
  const mounts: OpsMount[] = [
    ...(codec ? [{ path: CODEC_PATH, credential: 'own' as const, serve: (req: IncomingMessage, res: ServerResponse) => serveCodec(req, res, codec) }] : []),
    // The fault suite's pause points, where FAILPOINTS=true (NODE_ENV=test alone): behind ADMIN_TOKEN like the rest.
    ...(config.failpoints ? [{ path: FAILPOINTS_PATH, serve: serveFailpoints }] : []),
  ];
  return startOpsServer({
    host: config.admin.host,
    port: config.admin.port,
    token: config.admin.token,
    log,
    starting: opts.starting,
    checks: {
      database: () => connections.orm?.em.fork().execute('select 1') ?? notYet(),
      temporal: () => connections.temporal?.workflowService.getSystemInfo({}) ?? notYet(),
      // Only with ACQUIRER=stripe: a key Stripe refused makes the process not ready (src/modules/stripe/stripe-access.ts).
      ...(config.acquirer ? { acquirer: () => stripeKeyReadiness(config.acquirer!) } : {}),
    },
    sdkMetricsAddress: opts.worker ? config.temporal.metricsAddress : undefined,
    mounts,
  });
}
