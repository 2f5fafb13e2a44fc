import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogEntry, type LogLevel, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import type { Config } from '../config.js';
import { metrics } from '../ops/metrics.js';
import { encryptingDataConverter } from './payload-codec.js';

// Run from the TypeScript sources (tsx, jest) or from the production build (dist/, plain node): the
// workflow modules are the .ts or the compiled .js files beside this one's tree.
const compiled = import.meta.url.endsWith('.js');
const sibling = (relative: string) => fileURLToPath(new URL(`${relative}.${compiled ? 'js' : 'ts'}`, import.meta.url));
/** The workflows entry; the SDK bundles it (and only it) into the deterministic sandbox. */
export const workflowsPath = sibling('../../workflows/index');
/** Workflow interceptors: registered with the bundler, so a prebuilt bundle carries them too. */
export const workflowInterceptorModules = [sibling('../../workflows/failure-metrics')];
/**
 * The bundle `npm run build` writes beside the compiled code (dist/workflow-bundle.js). A production
 * worker loads it instead of running webpack over the workflows at every start (seconds of CPU); from
 * the sources there is none, and the worker bundles at start as before. WORKFLOW_BUNDLE_PATH names one
 * explicitly (the benchmark builds it once, so the worker it measures never runs webpack: bundling alone
 * raised its peak RSS by hundreds of MB).
 */
const builtWorkflowBundle = compiled ? fileURLToPath(new URL('../../workflow-bundle.js', import.meta.url)) : undefined;

function workflowCode(bundlePath = builtWorkflowBundle): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'> {
  if (bundlePath && existsSync(bundlePath)) return { workflowBundle: { codePath: bundlePath } };
  // Bundled at start, the SDK puts the data converter's failureConverterPath into the bundle itself.
  return { workflowsPath, interceptors: { workflowModules: workflowInterceptorModules } };
}

let runtimeInstalled = false;

/** The SDK's log entries (its own, and workflows' and activities' `log`) as records of the process's log. */
const intoPino = (log: Logger) => (entry: LogEntry) => {
  const level = entry.level === 'TRACE' ? 'trace' : entry.level === 'DEBUG' ? 'debug' : entry.level === 'INFO' ? 'info' : entry.level === 'WARN' ? 'warn' : 'error';
  log[level]({ temporal: entry.meta }, entry.message);
};

/**
 * The SDK's own logs (bundler, state changes) at WARN unless asked for: they drown the service's otherwise.
 * Given the process's logger, they go where its records go (JSON, or `npm start`'s short lines), not to
 * stderr in the SDK's own format. With `metricsAddress`, the SDK's metrics are exported for Prometheus
 * there; the ops server's `/metrics` serves them with the service's own. The process's shutdown
 * sequence (src/main) owns the signals, so the SDK does not install its own handlers.
 */
export function installRuntime(opts: { metricsAddress?: string; level?: LogLevel } = {}, log?: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const { metricsAddress, level = 'WARN' } = opts;
  try {
    Runtime.install({
      logger: log ? new DefaultLogger(level, intoPino(log)) : new DefaultLogger(level),
      shutdownSignals: [],
      ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
    });
  } catch (err) {
    // Already installed by an earlier connection in this process (tests): keep that one. Anything else,
    // its metrics port taken above all, is the start's to report: swallowed, the worker ran on without
    // the metrics it was told to export, and a second npm start never said its port was taken.
    if (!(err instanceof IllegalStateError)) {
      runtimeInstalled = false;
      throw err;
    }
  }
}

export async function connectWorker(config: Config['temporal'] & { address: string }, log?: Logger): Promise<NativeConnection> {
  installRuntime({ metricsAddress: config.metricsAddress, level: config.sdkLogLevel }, log);
  return NativeConnection.connect({ address: config.address, tls: config.tls || Boolean(config.apiKey), apiKey: config.apiKey });
}

/** Workflow task and local activity slots of a worker: see createWorker. */
const WORKFLOW_TASK_SLOTS = 200;

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
    ...workflowCode(config.workflowBundlePath),
    activities: createActivities(deps),
    // Opens and seals payloads in this thread, around the workflow sandbox; the failure converter it
    // names is also in the bundle (scripts/build.ts), so workflow failures are sealed too.
    dataConverter: encryptingDataConverter(config.encryptionKeys, { requireSealed: config.requireSealed }),
    // On shutdown, running activities get this long to finish before they are cancelled.
    shutdownGraceTime: config.shutdownGraceMs,
    // One V8 context per workflow thread, shared by every cached workflow (the SDK's default since 1.9,
    // stated so that no one turns it off unknowingly): about 1 MB a cached workflow instead of several.
    reuseV8Context: true,
    // A workflow evicted from the cache is replayed from its (short) history at its next task. The
    // default is bounded in src/config.ts: the SDK's own scales with the heap limit (2,000+ on this host).
    maxCachedWorkflows: config.maxCachedWorkflows,
    // A webhook attempt is a local activity, and a workflow task stays open (its slot taken) while one
    // runs: up to 30 s against a receiver that hangs. With the SDK's 40 slots, 60 deliveries to one slow
    // receiver held a payment's workflow task back 7.5 s (test/webhooks/webhook-slow-receiver.test.ts).
    // Slots cost little while their task waits; the bound is the cache (the SDK allows no more).
    maxConcurrentWorkflowTaskExecutions: Math.min(WORKFLOW_TASK_SLOTS, config.maxCachedWorkflows ?? WORKFLOW_TASK_SLOTS),
    maxConcurrentLocalActivityExecutions: WORKFLOW_TASK_SLOTS,
    sinks: { metrics: { workflowFailed: { fn: (_info: unknown, workflowType: string) => metrics.workflowFailure(workflowType) } } },
    ...options,
  });
}
