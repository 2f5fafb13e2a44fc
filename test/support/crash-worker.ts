/**
 * A worker in a process of its own, for the crash test (`node --import tsx test/support/crash-worker.ts`),
 * wired like `npm run worker` from the environment (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE).
 * With CRASH_WORKER_HOLD_REFUNDS=1 the processor's refund call never answers: it prints
 * `refund-started <refund id>` and waits, so the test can SIGKILL the process mid-refund.
 */
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/main/database.js';
import { createLogger } from '../../src/log.js';
import { connectTemporalFor, startWorker } from '../../src/main/runtime.js';
import { type PaymentProcessor, simulatorProcessor } from '../../src/modules/processor/index.js';

const holding: PaymentProcessor = {
  ...simulatorProcessor,
  refund: (request) => {
    process.stdout.write(`refund-started ${request.idempotencyKey}\n`);
    return new Promise(() => {});
  },
};

const config = loadConfig();
const orm = await openDatabase(config.databaseUrl!);
const temporal = await connectTemporalFor(config);
const processor = process.env.CRASH_WORKER_HOLD_REFUNDS === '1' ? holding : simulatorProcessor;
await startWorker({ config, orm, temporal, log: createLogger(config.logLevel), processor });
process.stdout.write('worker running\n');
