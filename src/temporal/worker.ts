import { createRequire } from 'node:module';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import type { Config } from '../config.js';

const require = createRequire(import.meta.url);
/** The workflows entry; the SDK bundles it (and only it) into the deterministic sandbox. */
export const workflowsPath = require.resolve('../../workflows/index.ts');

let runtimeInstalled = false;

/** The SDK's own logs (bundler, state changes) at WARN unless asked for: they drown the service's otherwise. */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.TEMPORAL_SDK_LOG_LEVEL ?? 'WARN') as LogLevel;
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // Already installed by an earlier connection in this process (tests): keep that one.
  }
}

export async function connectWorker(config: Config['temporal'] & { address: string }): Promise<NativeConnection> {
  installRuntime();
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
