import { createRequire } from 'node:module';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import type { Config } from '../config.js';

const require = createRequire(import.meta.url);
/** The workflows entry; the SDK bundles it (and only it) into the deterministic sandbox. */
export const workflowsPath = require.resolve('../../workflows/index.ts');

export async function connectWorker(config: Config['temporal'] & { address: string }): Promise<NativeConnection> {
  return NativeConnection.connect({ address: config.address, tls: config.tls || Boolean(config.apiKey), apiKey: config.apiKey });
}

export async function createWorker(
  connection: NativeConnection,
  config: Config['temporal'],
  deps: ActivityDeps,
  options: Partial<WorkerOptions> = {},
): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    workflowsPath,
    activities: createActivities(deps),
    ...options,
  });
}
