/**
 * Every recorded history (test/replay/histories/, from `npm run record-histories`) replays against the
 * workflow code the worker runs today. A change that would break a run in flight (an activity moved,
 * added or removed without `patched()`, a timer changed) fails here, naming the fixture, its workflow
 * type and id, and the SDK's account of the mismatched event. docs/decisions.md, Workflow versioning,
 * says how to change a workflow so that this stays green. The production-build fault test replays the
 * same fixtures against the prebuilt bundle production runs (dist/workflow-bundle.js).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ReplayResult } from '@temporalio/worker';
import { readIndex } from './fixtures.js';
import { copyOfWorkflows } from './recorder.js';
import { explain, replay, workerCode } from './replayer.js';

const fixtures = readIndex();

describe('recorded workflow histories replay on the current workflow code', () => {
  let results: Map<string, ReplayResult>;
  beforeAll(async () => {
    results = await replay(await workerCode(), fixtures);
  }, 180_000);

  it('has a fixture for every workflow type the worker runs', async () => {
    const exported = Object.keys(await import('../../workflows/index.js')).sort();
    expect([...new Set(fixtures.map((f) => f.workflowType))].sort()).toEqual(exported);
  });

  it('keeps both paths of the unknown-charge-lookup patch', () => {
    const branches = fixtures.filter((f) => f.workflowType === 'checkoutWorkflow').map((f) => f.file);
    expect(branches).toEqual(expect.arrayContaining(['checkout-payment-charge-failed-before-lookup.json', 'checkout-payment-unknown-then-not-found.json']));
  });

  it.each(fixtures.map((f) => [f.file, f] as const))('%s', (_file, fixture) => {
    expect(explain(fixture, results.get(fixture.workflowId))).toBeNull();
  });
});

describe('the replay check catches a non-deterministic change', () => {
  it('fails a delivery history when two activities of the webhook workflow are reordered', async () => {
    const delivered = fixtures.find((f) => f.file === 'webhook-delivery-first-try-before-pacing.json')!;
    // A copy of workflows/ whose webhook workflow marks the delivery failed before its first attempt.
    const broken = copyOfWorkflows();
    try {
      const file = broken.workflowsPath.replace(/index\.ts$/, 'webhooks.ts');
      const source = readFileSync(file, 'utf8');
      const moved = source
        .replace('  await failWebhookDelivery(input.deliveryId);\n  return \'failed\';', "  return 'failed';")
        .replace('  const delays = input.delaysMs ?? WEBHOOK_RETRY_DELAYS_MS;\n', '  const delays = input.delaysMs ?? WEBHOOK_RETRY_DELAYS_MS;\n  await failWebhookDelivery(input.deliveryId);\n');
      expect(moved).not.toBe(source);
      writeFileSync(file, moved);
      const results = await replay(await workerCode(broken.workflowsPath), [delivered]);
      const failure = explain(delivered, results.get(delivered.workflowId));
      expect(failure).toContain(`webhookDeliveryWorkflow ${delivered.workflowId} does not replay`);
      expect(failure).toContain("at event 5 (ActivityTaskScheduled attemptWebhookDelivery): DeterminismViolationError: [TMPRL1100] Nondeterminism error: Activity type of scheduled event 'attemptWebhookDelivery' does not match activity type of activity command 'failWebhookDelivery'");
    } finally {
      broken.remove();
    }
  }, 180_000);
});
