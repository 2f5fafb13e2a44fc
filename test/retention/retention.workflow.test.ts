import { jest } from '@jest/globals';
import type { IdempotencyActivities } from '../../activities/idempotency.js';
import type { RetentionActivities } from '../../activities/retention.js';
import type { RetentionBatch } from '../../contracts/retention.js';
import { retentionWorkflow } from '../../workflows/retention.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const DAY = 24 * 3600 * 1000;

describe('retention workflow', () => {
  it("cuts each rule's window from the run's own start: events 30 days, dispatched outbox rows 7; a full batch is followed by another", async () => {
    const batches: RetentionBatch[] = [];
    const applyRetention = jest.fn<RetentionActivities['applyRetention']>(async (batch) => {
      batches.push(batch);
      // Events: two full batches, then the rest; the outbox: one batch.
      const full = batch.rule === 'events' && batches.filter((b) => b.rule === 'events').length <= 2;
      return { deleted: full ? 5_000 : 12, more: full };
    });
    const purgeExpiredIdempotencyKeys = jest.fn<IdempotencyActivities['purgeExpiredIdempotencyKeys']>(async () => 3);
    const taskQueue = `retention-${Math.random()}`;
    const worker = await testWorker(env(), taskQueue, { applyRetention, purgeExpiredIdempotencyKeys });
    await worker.runUntil(async () => {
      await env().sleep(400 * DAY); // a year and more after the epoch of the test server's clock
      const started = await env().currentTimeMs();
      const result = await env().client.workflow.execute(retentionWorkflow, { workflowId: `retention-${Math.random()}`, taskQueue });
      expect(result).toEqual({ idempotency_keys: 3, events: 10_012, outbox: 12 });
      const cutoff = (rule: string) => [...new Set(batches.filter((b) => b.rule === rule).map((b) => Date.parse(b.before)))];
      expect(cutoff('events')).toHaveLength(1);
      expect(cutoff('events')[0]).toBeGreaterThanOrEqual(started - 30 * DAY);
      expect(cutoff('events')[0]).toBeLessThan(started - 30 * DAY + 60_000);
      expect(cutoff('outbox')[0] - cutoff('events')[0]).toBe(23 * DAY);
      expect(batches.map((b) => b.rule)).toEqual(['events', 'events', 'events', 'outbox']);
    });
  });
});
