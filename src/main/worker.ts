/**
 * The Temporal worker alone (production: scale horizontally). Runs the workflows, the activities and
 * the outbox relay. Uses DATABASE_URL and TEMPORAL_ADDRESS, defaulting to `npm start`'s embedded servers.
 */
import { logLivePayments } from '../modules/processor/index.js';
import { bootService, runEntryPoint } from './boot.js';
import { gracefulShutdown } from './graceful-shutdown.js';
import { startWorker } from './runtime.js';

runEntryPoint('worker failed', async () => {
  const { config, log, orm, temporal, ops, wait } = await bootService('worker');
  const worker = await startWorker({ config, orm, temporal, log, wait });
  const shutdown = gracefulShutdown({
    log,
    steps: [
      { name: 'readiness off', run: ops.drain },
      // Stops polling, lets running activities finish (up to the worker's grace time), stops the relay.
      { name: 'worker', run: worker.stop },
      { name: 'Temporal connection', run: () => temporal.connection.close() },
      { name: 'database pool', run: () => orm.close() },
      { name: 'admin server', run: ops.close },
    ],
  });
  // Ready, and announced, only once SIGTERM is handled (as the API does).
  ops.serving();
  log.info({ taskQueue: config.temporal.taskQueue, adminPort: ops.port }, 'worker running');
  logLivePayments(log, config);
  // A worker that stops on its own (a fatal error) takes the process down the same way.
  await worker.running.catch((err) => log.error({ err }, 'worker stopped'));
  await shutdown(1);
});
