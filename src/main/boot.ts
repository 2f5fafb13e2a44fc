import { assertStartable, ConfigError, loadConfig, TEST_ENV_WARNING } from '../config.js';
import { createLogger } from '../log.js';
import { enableFailpoints } from '../ops/failpoints.js';
import { dependencyWait, StartupTimeout } from './dependency-wait.js';
import { withKeys } from './keys.js';
import { startOpsPort, type Connections } from './ops-port.js';
import { connectTemporalFor, defaultTemporalAddress, openDatabaseFor } from './runtime.js';
import { checkStripeKey } from '../modules/stripe/index.js';

/**
 * What the API and the worker each do first, in this order: the configuration (an unset NODE_ENV is
 * production here, unlike `npm start`, so a deployment that forgets it fails closed), the keys, the
 * logger, Stripe's acceptance of its key (with ACQUIRER=stripe), the ops port (open and not ready: alive to a supervisor, and saying what it waits for),
 * then the database (migrated or waited for) and Temporal, each waited for with backoff until it
 * answers or STARTUP_TIMEOUT runs out (src/main/dependency-wait.ts). The caller calls `ops.serving()`
 * once it serves.
 */
export async function bootService(kind: 'api' | 'worker') {
  const loaded = loadConfig(process.env, 'production');
  assertStartable(loaded);
  const config = withKeys(loaded);
  const log = createLogger(config.logLevel);
  if (config.env === 'test') log.warn(TEST_ENV_WARNING);
  if (config.failpoints) enableFailpoints();
  // One read at Stripe, only with ACQUIRER=stripe: a key it refuses stops the start here, named, rather
  // than every payment later answering 503 (the simulator's start asks nothing).
  if (config.acquirer) await checkStripeKey(config.acquirer, log);
  const connections: Connections = {};
  const ops = await startOpsPort({ config, connections, log, worker: kind === 'worker', codec: kind === 'api', starting: true });
  const wait = dependencyWait({ log, timeoutMs: config.startupTimeoutMs, onWait: ops.waitingFor });
  // Stopped while it waits (a deploy rolled on, compose stopped it): it has served nothing and written
  // nothing, so it exits at once, 0, as a drained process does; the shutdown sequence takes over later.
  const stopWaiting = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'stopped while starting');
    process.exit(0);
  };
  process.once('SIGTERM', stopWaiting).once('SIGINT', stopWaiting);
  try {
    const orm = (connections.orm = await openDatabaseFor(config, wait));
    const temporal = (connections.temporal = await wait(`Temporal at ${defaultTemporalAddress(config)}`, () => connectTemporalFor(config)));
    return { config, log, orm, temporal, ops, wait };
  } finally {
    process.off('SIGTERM', stopWaiting).off('SIGINT', stopWaiting);
  }
}

/**
 * Runs an entry point; a failure to start ends the process: a configuration error as its message alone,
 * a wait that ran out as its message after `failed`, anything else with its stack.
 */
export function runEntryPoint(failed: string, main: () => Promise<void>): void {
  main().catch((err) => {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`${failed}: ${err instanceof StartupTimeout ? err.message : (err?.stack ?? err)}\n`);
    process.exit(1);
  });
}
