/**
 * The Temporal worker alone (production: scale horizontally). Runs the workflows, the activities and
 * the outbox relay. Uses DATABASE_URL and TEMPORAL_ADDRESS, defaulting to `npm start`'s embedded servers.
 */
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { connectTemporalFor, defaultDatabaseUrl, openMigratedDatabase, startWorker } from './runtime.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const orm = await openMigratedDatabase(defaultDatabaseUrl(config));
  const temporal = await connectTemporalFor(config);
  const worker = await startWorker({ config, orm, temporal, log });
  log.info({ taskQueue: config.temporal.taskQueue }, 'worker running');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // shutdown() stops polling and lets running activities finish before run() resolves.
    await worker.stop();
    await temporal.connection.close();
    await orm.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await worker.running;
}

main().catch((err) => {
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `worker failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
