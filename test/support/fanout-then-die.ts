/**
 * A worker-like process for the crash test: it dispatches the event's outbox row as a relay does, and kills
 * itself (SIGKILL, no clean-up of any kind) inside the `event.fanout` handler, after the deliveries are
 * committed and before any workflow is started or the outbox row is marked dispatched.
 * Run as `node --import tsx test/support/fanout-then-die.ts` with the stack's DATABASE_URL,
 * TEMPORAL_ADDRESS and TEMPORAL_TASK_QUEUE, and CRASH_OUTBOX_ID naming the event's outbox row.
 */
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/main/database.js';
import { createLogger } from '../../src/log.js';
import { connectTemporalFor } from '../../src/main/runtime.js';
import { createOutboxDispatcher } from '../../src/modules/outbox/outbox.dispatcher.js';
import { createEventFanout } from '../../src/modules/webhooks/fanout.service.js';

const config = loadConfig();
const log = createLogger('silent');
const orm = await openDatabase(config.databaseUrl!);
const temporal = await connectTemporalFor(config);
const taskQueue = config.temporal.taskQueue;
const fanOut = createEventFanout({
  orm,
  temporal,
  taskQueue,
  log,
  afterDeliveriesCommitted: () => {
    process.stdout.write('deliveries committed; dying\n');
    process.kill(process.pid, 'SIGKILL');
  },
});
const dispatcher = createOutboxDispatcher({ orm, temporal, taskQueue, log, handlers: { 'event.fanout': fanOut } });
// Only the test's own row: another test file on this database may have left rows of its own behind,
// and dying on one of those would leave the test's event untouched.
await dispatcher.dispatch([process.env.CRASH_OUTBOX_ID!]);
process.stdout.write('the relay finished without dying\n');
process.exit(3);
