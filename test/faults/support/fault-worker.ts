/**
 * A worker process wired like `src/main/worker.ts` (the same activities, workflows and outbox relay),
 * except that the activities named in FAULT_HOLD stop at a point and never return, so a fault test can
 * SIGKILL the process exactly there:
 *
 *   FAULT_HOLD=releaseReserve:after,payWithdrawal:before
 *
 * `before`: the activity has started and done nothing yet. `after`: it has done all its work (its
 * transaction committed) but Temporal never hears that it finished, the window in which a retry could
 * move money twice. At the point it prints `held <activity> <first argument as JSON>`.
 * Run as `node --import tsx test/faults/support/fault-worker.ts` with the worker's environment.
 */
import { createActivities } from '../../../activities/index.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/main/database.js';
import { createLogger } from '../../../src/log.js';
import { paymentProcessor } from '../../../src/main/payment-processor.js';
import { connectTemporalFor, defaultTemporalAddress, outboxFor } from '../../../src/main/runtime.js';
import { startOutboxRelay } from '../../../src/modules/outbox/index.js';
import { webhookEncryptionKey } from '../../../src/modules/webhooks/index.js';
import { connectWorker, createWorker } from '../../../src/temporal/worker.js';

type Activity = (...args: unknown[]) => Promise<unknown>;

const holds = new Map(
  (process.env.FAULT_HOLD ?? '')
    .split(',')
    .filter(Boolean)
    .map((spec) => spec.split(':') as [string, 'before' | 'after']),
);

const never = () => new Promise<never>(() => {});
const held = (name: string, args: unknown[]) => process.stdout.write(`held ${name} ${JSON.stringify(args[0])}\n`);

function holding(activities: Record<string, Activity>): Record<string, Activity> {
  const wrapped = { ...activities };
  for (const [name, point] of holds) {
    const real = activities[name];
    if (!real) throw new Error(`FAULT_HOLD names no activity "${name}"`);
    wrapped[name] = async (...args) => {
      if (point === 'after') await real(...args);
      held(name, args);
      return never();
    };
  }
  return wrapped;
}

const config = loadConfig();
const log = createLogger(config.logLevel);
const orm = await openDatabase(config.databaseUrl!);
const temporal = await connectTemporalFor(config);
const connection = await connectWorker({ ...config.temporal, address: defaultTemporalAddress(config) });
const deps = {
  orm,
  // The processor as the worker process chooses it (src/main/payment-processor.ts): one place chooses.
  processor: paymentProcessor(config, { orm, log }),
  sessionTtlMs: config.sessionTtlMs,
  disputes: config.disputes,
  webhooks: { encryptionKey: webhookEncryptionKey(config), caFile: config.webhooks.caFile, allowPrivateUrls: config.webhooks.allowPrivateUrls },
};
const activities = holding(createActivities(deps) as unknown as Record<string, Activity>);
const worker = await createWorker(connection, config.temporal, deps, { activities });
startOutboxRelay(outboxFor(orm, temporal, config, log), orm, log);
process.stdout.write('worker running\n');
await worker.run();
