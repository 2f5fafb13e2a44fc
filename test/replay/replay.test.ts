/**
 * Every recorded history (test/replay/histories/, from `npm run record-histories`) replays against the
 * workflow code the worker runs today. A change that would break a run in flight (an activity moved,
 * added or removed without `patched()`, a timer changed) fails here, naming the fixture, its workflow
 * type and id, and the SDK's account of the mismatched event. docs/decisions.md, Workflow versioning,
 * says how to change a workflow so that this stays green.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { bundleWorkflowCode, Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { payloadKeyRing, TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { encryptingDataConverter, failureConverterPath } from '../../src/temporal/payload-codec.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/temporal/worker.js';
import { readHistory, readIndex, type Fixture } from './fixtures.js';
import { copyOfWorkflows } from './recorder.js';

const fixtures = readIndex();

/**
 * The worker's workflow code: the bundle the worker makes from workflows/index.ts with the same
 * interceptor modules, or a prebuilt one (dist/workflow-bundle.js) when REPLAY_WORKFLOW_BUNDLE names it.
 */
async function workerCode(path = workflowsPath): Promise<ReplayWorkerOptions['workflowBundle']> {
  const prebuilt = process.env.REPLAY_WORKFLOW_BUNDLE;
  if (prebuilt && path === workflowsPath) return { code: readFileSync(prebuilt, 'utf8') };
  return { code: (await bundleWorkflowCode({ workflowsPath: path, workflowInterceptorModules, failureConverterPath, logger: quietLogger })).code };
}

const quiet = () => {};
const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** Replays the fixtures, one result per workflow id. */
async function replay(workflowBundle: ReplayWorkerOptions['workflowBundle'], which: Fixture[]): Promise<Map<string, ReplayResult>> {
  const options: ReplayWorkerOptions = {
    workflowBundle,
    // The worker's sinks (failure metrics); never called during replay, but registered as on the worker.
    sinks: { metrics: { workflowFailed: { fn: () => {} } } },
    // The worker's data converter: fixtures recorded before payload encryption pass through its codec
    // unchanged, those recorded since (by the test key ring) are opened by it.
    dataConverter: encryptingDataConverter(payloadKeyRing.parse(TEST_PAYLOAD_ENCRYPTION_KEYS)),
  };
  const histories = which.map((f) => ({ workflowId: f.workflowId, history: readHistory(f) }));
  const results = new Map<string, ReplayResult>();
  for await (const result of Worker.runReplayHistories(options, histories)) results.set(result.workflowId, result);
  return results;
}

/** The failure a broken replay reports: which fixture, which workflow, and what the SDK found. */
function explain(fixture: Fixture, result: ReplayResult | undefined): string | null {
  if (!result) return `${fixture.file}: ${fixture.workflowType} ${fixture.workflowId} was not replayed`;
  if (!result.error) return null;
  const error = result.error as Error;
  // The core's own words (`[TMPRL1100] Nondeterminism error: …`) are buried in a long Rust debug dump.
  const core = /\[TMPRL\d+\][^"]*/.exec(error.message)?.[0];
  return (
    `${fixture.file} (${fixture.branch}): ${fixture.workflowType} ${fixture.workflowId} does not replay on today's code` +
    `${mismatchedEvent(fixture, error.message)}: ${error.name}: ${core ?? error.message}` +
    (core ? `\n(full error: ${error.message})` : '')
  );
}

/**
 * The recorded events the SDK's message names (an activity's scheduling, a patch marker), by id and type.
 * The message names the kind of event, not its id: where the history has several of that kind, all are listed.
 */
function mismatchedEvent(fixture: Fixture, message: string): string {
  const activity = /scheduled event '([^']+)'/.exec(message)?.[1];
  const patch = /marker encountered for change ([\w-]+)/.exec(message)?.[1];
  const ids = (readHistory(fixture).events ?? [])
    .filter(
      (e) =>
        (activity && e.activityTaskScheduledEventAttributes?.activityType?.name === activity) ||
        (patch && Buffer.from(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data ?? []).toString().includes(`"${patch}"`)),
    )
    .map((e) => String(e.eventId));
  if (!ids.length) return '';
  const where = ids.length > 1 ? `one of events ${ids.join(', ')}` : `event ${ids[0]}`;
  return activity ? ` at ${where} (ActivityTaskScheduled ${activity})` : ` at ${where} (MarkerRecorded, patch ${patch})`;
}

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
