/**
 * Replaying recorded histories (test/replay/histories/) against workflow code: the bundle the worker
 * makes from workflows/ (replay.test.ts) or the prebuilt bundle production runs (the production-build
 * fault test), with the worker's data converter, and the failure explained by fixture and event.
 */
import { readFileSync } from 'node:fs';
import { bundleWorkflowCode, Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { payloadKeyRing, TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { encryptingDataConverter, failureConverterPath } from '../../src/temporal/payload-codec.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/temporal/worker.js';
import { readHistory, type Fixture } from './fixtures.js';

/**
 * The worker's workflow code: the bundle the worker makes from workflows/index.ts (or a copy of it) with
 * the same interceptor modules.
 */
export async function workerCode(path = workflowsPath): Promise<ReplayWorkerOptions['workflowBundle']> {
  return { code: (await bundleWorkflowCode({ workflowsPath: path, workflowInterceptorModules, failureConverterPath, logger: quietLogger })).code };
}

/** A prebuilt bundle, as `npm run build` writes it (dist/workflow-bundle.js) and production's worker loads it. */
export const prebuiltCode = (file: string): ReplayWorkerOptions['workflowBundle'] => ({ code: readFileSync(file, 'utf8') });

const quiet = () => {};
const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** Replays the fixtures, one result per workflow id. */
export async function replay(workflowBundle: ReplayWorkerOptions['workflowBundle'], which: Fixture[]): Promise<Map<string, ReplayResult>> {
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
export function explain(fixture: Fixture, result: ReplayResult | undefined): string | null {
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

