/**
 * A worker-like process for the crash tests: it dispatches the event's outbox row as a relay does, and is
 * killed (SIGKILL, no clean-up of any kind) inside the `event.fanout` handler, before any workflow is
 * started or the outbox row is marked dispatched. CRASH_AT says where:
 * - `deliveries` (the default): it kills itself once the deliveries are committed, before any attempt;
 * - `first-attempt`: it sends the first attempts as a worker's fan-out does, with a Temporal that never
 *   answers a start; the test kills it once the POST has arrived.
 * Run as `node --import tsx test/support/fanout-then-die.ts` with the stack's DATABASE_URL,
 * TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, WEBHOOK_ENCRYPTION_KEY and WEBHOOK_CA_FILE, and CRASH_OUTBOX_ID
 * naming the event's outbox row.
 */
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/main/database.js';
import { createLogger } from '../../src/log.js';
import { connectTemporalFor } from '../../src/main/runtime.js';
import { createOutboxDispatcher } from '../../src/modules/outbox/index.js';
import { createDeliveryAttempts, createEventFanout, createFirstAttempts, webhookEncryptionKey } from '../../src/modules/webhooks/index.js';

const config = loadConfig();
const log = createLogger('silent');
const orm = await openDatabase(config.databaseUrl!);
const taskQueue = config.temporal.taskQueue;
const atFirstAttempt = process.env.CRASH_AT === 'first-attempt';

const neverStarts = { workflow: { start: () => new Promise(() => {}) } } as unknown as Client;
const temporal = atFirstAttempt ? neverStarts : await connectTemporalFor(config);
const webhooks = { encryptionKey: webhookEncryptionKey(config), caFile: config.webhooks.caFile, allowPrivateUrls: config.webhooks.allowPrivateUrls };
const fanOut = createEventFanout({
  orm,
  temporal,
  taskQueue,
  log,
  retryDelaysMs: config.webhooks.retryDelaysMs,
  ...(atFirstAttempt
    ? { firstAttempts: createFirstAttempts(createDeliveryAttempts({ orm, log, webhooks }), log, config.webhooks.retryDelaysMs) }
    : {
        afterDeliveriesCommitted: () => {
          process.stdout.write('deliveries committed; dying\n');
          process.kill(process.pid, 'SIGKILL');
        },
      }),
});
const dispatcher = createOutboxDispatcher({ orm, temporal, taskQueue, log, handlers: { 'event.fanout': fanOut } });
// Only the test's own row: another test file on this database may have left rows of its own behind,
// and dying on one of those would leave the test's event untouched.
await dispatcher.dispatch([process.env.CRASH_OUTBOX_ID!]);
process.stdout.write('the relay finished without dying\n');
process.exit(3);
