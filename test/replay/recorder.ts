/**
 * Helpers of the history recorder (test/replay/record.test.ts): wait for a real run to close, fetch its
 * history from the dev server, write it with the SDK's `historyToJSON`, and run a worker on an older copy
 * of the workflow code for the branches only old code takes.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { webhookEncryptionKey } from '../../src/modules/webhooks/index.js';
import { connectWorker, createWorker, workflowInterceptorModules } from '../../src/temporal/worker.js';
import type { TestStack } from '../support/stack.js';
import { HISTORIES_DIR, type Fixture } from './fixtures.js';
import { historyJSON } from './history-json.js';
import { paymentProcessor } from '../../src/main/payment-processor.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DAY_MS = 24 * 3600_000;
/** The longest timer an open run can wait on: a reserve's 90-day hold (docs/decisions.md, Workflow versioning). */
export const KEEP_FOR_MS = 90 * DAY_MS;

/** Waits until the run exists (outbox starts come just after the commit) and has closed. */
export async function closedHistory(temporal: Client, workflowId: string, timeoutMs = 60_000): Promise<History> {
  const handle = temporal.workflow.getHandle(workflowId);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const described = await handle.describe().catch(() => undefined);
    if (described && described.status.name !== 'RUNNING') {
      if (described.status.name !== 'COMPLETED' && described.status.name !== 'CONTINUED_AS_NEW') {
        throw new Error(`${workflowId} closed as ${described.status.name}, not as a recorded branch should`);
      }
      return handle.fetchHistory();
    }
    if (Date.now() > until) throw new Error(`${workflowId} did not close within ${timeoutMs} ms (${described?.status.name ?? 'not started'})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The history of a run that never closes (the session expiry sweep), taken while it sleeps on its timer
 * after at least `sweeps` completed activities, so it ends on a whole workflow task.
 */
export async function sleepingHistory(temporal: Client, workflowId: string, activities: number, timeoutMs = 60_000): Promise<History> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const done = events.filter((e) => e.activityTaskCompletedEventAttributes).length;
    if (done >= activities && events.at(-1)?.timerStartedEventAttributes) return history;
    if (Date.now() > until) throw new Error(`${workflowId}: no sleep after ${activities} activities within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Writes one history (the SDK's proto JSON, as `historyToJSON` writes it) and returns its index entry. */
export function saveHistory(
  history: History,
  entry: { name: string; workflowId: string; workflowType: string; branch: string; recordedWith?: string },
): Fixture {
  const file = `${entry.name}.json`;
  // RECORD_ONLY (record.test.ts): a fixture it leaves out is not written, so the file in the tree stays.
  const only = process.env.RECORD_ONLY ? new RegExp(process.env.RECORD_ONLY) : null;
  if (!only || only.test(entry.name)) writeFileSync(path.join(HISTORIES_DIR, file), `${historyJSON(history)}\n`);
  const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (type !== entry.workflowType) throw new Error(`${entry.workflowId} is a ${type}, not a ${entry.workflowType}`);
  const now = new Date();
  return {
    file,
    workflowId: entry.workflowId,
    workflowType: entry.workflowType,
    branch: entry.branch,
    recordedAt: now.toISOString(),
    recordedWith: entry.recordedWith ?? 'current',
    keepUntil: new Date(now.getTime() + KEEP_FOR_MS).toISOString(),
  };
}

/**
 * A copy of today's workflows/ (the work tree's), with `files` as they were at `commit`, inside the
 * repository so the bundler finds @temporalio/workflow in node_modules. Removed by the returned function.
 */
export function copyOfWorkflows(commit?: string, files: string[] = []): { workflowsPath: string; remove: () => void } {
  const dir = mkdtempSync(path.join(REPO, '.replay-old-workflows-'));
  cpSync(path.join(REPO, 'workflows'), dir, { recursive: true });
  for (const file of files) {
    const text = execFileSync('git', ['show', `${commit ?? 'HEAD'}:workflows/${file}`], { cwd: REPO, encoding: 'utf8' });
    writeFileSync(path.join(dir, file), text);
  }
  return { workflowsPath: path.join(dir, 'index.ts'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A worker on the stack's task queue running `workflowsPath` (an older copy of the workflows) with
 * today's activities, wired as src/main/runtime.ts startWorker wires them. For a stack started with
 * `{ worker: false }`, so no current worker competes for its tasks.
 */
export async function startWorkerOn(stack: TestStack, workflowsPath: string): Promise<() => Promise<void>> {
  const { config, orm } = stack;
  const connection = await connectWorker({ ...config.temporal, address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createWorker(
    connection,
    config.temporal,
    {
      orm,
      processor: paymentProcessor(config, { orm }),
      webhooks: { encryptionKey: webhookEncryptionKey(config), caFile: config.webhooks.caFile, allowPrivateUrls: config.webhooks.allowPrivateUrls },
      sessionTtlMs: config.sessionTtlMs,
      disputes: config.disputes,
    },
    { workflowsPath, interceptors: { workflowModules: workflowInterceptorModules } },
  );
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
    await connection.close();
  };
}
