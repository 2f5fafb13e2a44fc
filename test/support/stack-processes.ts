/**
 * The service's processes on a test stack, as an operator runs them (`node --import tsx src/main/api.ts`,
 * `…/worker.ts`): real OS processes a test can SIGKILL and start again, wired to the stack's database,
 * Temporal and task queue. A test's own worker entry (a worker with a hold point, say) starts the same
 * way. Every one is killed when the stack stops.
 */
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { spawnLogged, type ServiceProcess } from './processes.js';

/** What every process of a stack shares: one database, one Temporal, one task queue. */
export interface Wiring {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /**
   * The environment every process gets over the defaults below: the stack's webhook key, and what the
   * stack was started with (WEBHOOK_CA_FILE, WITHDRAWAL_PROCESSING_DELAY, …).
   */
  env: Record<string, string>;
}

export interface ApiProcess extends ServiceProcess {
  origin: string;
  port: number;
  /** The operator's port (/metrics, /healthz), plain HTTP on loopback. */
  adminOrigin: string;
}

/** Where the processes' data directories go, under the test run's root; their logs go to `logs` in it. */
const processesDir = () => path.join(process.env.TEST_ROOT!, 'processes');
export const processLogDir = () => path.join(processesDir(), 'logs');

export type StackProcesses = ReturnType<typeof stackProcesses>;

export function stackProcesses(wiring: Wiring) {
  const env = (name: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    ALLOW_TEST_ENV: 'true',
    DATABASE_URL: wiring.databaseUrl,
    TEMPORAL_ADDRESS: wiring.temporalAddress,
    TEMPORAL_TASK_QUEUE: wiring.taskQueue,
    DATA_DIR: path.join(processesDir(), name),
    LOG_LEVEL: 'info',
    TEMPORAL_SDK_LOG_LEVEL: 'WARN',
    // Load, soak and fault runs pay from 127.0.0.1 far faster than one buyer's address would.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    ...wiring.env,
  });
  /** `node --import tsx <entry>` with the stack's environment and `extra` over it. */
  const run = (name: string, entry: string, extra: Record<string, string> = {}) =>
    spawnLogged(name, process.execPath, ['--import', 'tsx', entry], { env: { ...env(name), ...extra }, logDir: processLogDir() });

  return {
    run,

    /** `src/main/api.ts` on `port` (a fixed port, so a restarted API answers at the same origin). */
    async api(opts: { name?: string; port?: number; env?: Record<string, string> } = {}): Promise<ApiProcess> {
      const port = opts.port ?? (await freePort());
      const adminPort = await freePort();
      const proc = run(opts.name ?? 'api', 'src/main/api.ts', {
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        TLS_CERT_FILE: process.env.TEST_TLS_CERT!,
        TLS_KEY_FILE: process.env.TEST_TLS_KEY!,
        ...opts.env,
      });
      await proc.waitFor('API listening');
      return { ...proc, port, origin: `https://localhost:${port}`, adminOrigin: `http://127.0.0.1:${adminPort}` };
    },

    /**
     * `src/main/worker.ts` (workflows, activities and the outbox relay), or a test's own worker `entry`
     * wired the same way; resolves once it says `worker running`.
     */
    async worker(opts: { name?: string; entry?: string; env?: Record<string, string> } = {}): Promise<ServiceProcess & { adminOrigin: string }> {
      const adminPort = await freePort();
      const proc = run(opts.name ?? 'worker', opts.entry ?? 'src/main/worker.ts', { ADMIN_PORT: String(adminPort), ...opts.env });
      // A worker bundles its workflows (webpack) before it polls: seconds alone, over a minute when the
      // machine's two cores are busy.
      await proc.waitFor('worker running', 180_000);
      return { ...proc, adminOrigin: `http://127.0.0.1:${adminPort}` };
    },
  };
}
