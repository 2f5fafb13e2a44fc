import { assertStartable, ConfigError, loadConfig, TEST_ENV_WARNING } from '../config.js';
import { createLogger } from '../log.js';
import { enableFailpoints } from '../ops/failpoints.js';
import { withKeys } from './keys.js';
import { connectTemporalFor, openDatabaseFor } from './runtime.js';

/**
 * What the API and the worker each do first, in this order: the configuration (an unset NODE_ENV is
 * production here, unlike `npm start`, so a deployment that forgets it fails closed), the keys, the
 * logger, then the database (migrated or waited for) and Temporal.
 */
export async function bootService() {
  const loaded = loadConfig(process.env, 'production');
  assertStartable(loaded);
  const config = withKeys(loaded);
  const log = createLogger(config.logLevel);
  if (config.env === 'test') log.warn(TEST_ENV_WARNING);
  if (config.failpoints) enableFailpoints();
  const orm = await openDatabaseFor(config, log);
  const temporal = await connectTemporalFor(config);
  return { config, log, orm, temporal };
}

/** Runs an entry point; a failure to start ends the process: a configuration error as its message alone, anything else with its stack. */
export function runEntryPoint(failed: string, main: () => Promise<void>): void {
  main().catch((err) => {
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `${failed}: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
