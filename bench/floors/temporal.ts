import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

const require = createRequire(import.meta.url);

/** Runs `work(i)` with `concurrency` in flight for `durationMs`; returns completions per second. */
export async function closedLoop(concurrency: number, durationMs: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const until = Date.now() + durationMs;
  let done = 0;
  let next = 0;
  const lane = async () => {
    while (Date.now() < until) {
      await work(next++);
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  return Math.round((done * 1000) / (Date.now() - started));
}

/** F3: workflow starts per second with no worker polling the queue. */
export async function floorWorkflowStarts(address: string, durationMs: number, concurrency = 32): Promise<number> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const run = `${Date.now()}`;
  try {
    return await closedLoop(concurrency, durationMs, (i) =>
      client.workflow.start('benchNoopWorkflow', { taskQueue: `bench-f3-${run}`, workflowId: `f3-${run}-${i}` }),
    );
  } finally {
    await connection.close();
  }
}

/** F4: the same TS worker running a one-activity workflow, 32 in flight; completions per second. */
export async function floorWorkflowCompletions(address: string, durationMs: number, concurrency = 32): Promise<number> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const nativeConnection = await NativeConnection.connect({ address });
  const taskQueue = `bench-f4-${Date.now()}`;
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('./workflows.ts'),
    activities: { noop: async () => {} },
  });
  try {
    return await worker.runUntil(
      closedLoop(concurrency, durationMs, (i) =>
        client.workflow.execute('benchNoopWorkflow', { taskQueue, workflowId: `${taskQueue}-${i}` }),
      ),
    );
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}
