import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeDefinitions } from '../../contracts/search-attributes.js';

/**
 * Eager activity execution (docs/decisions.md, Hot paths): a workflow task that schedules an activity on its own task queue
 * gets the activity back in the completion's answer, when the worker has a slot free, instead of through
 * the matching service: one round trip fewer before a webhook's first attempt or a refund's processor
 * call. Off by default in the server; the worker reserves up to 3 per task (its SDK default).
 */
const SERVER_DYNAMIC_CONFIG = { 'system.enableActivityEagerExecution': 'true' };

export interface TemporalDevServer {
  address: string;
  /** The exact `temporal` arguments, recorded beside benchmark figures. */
  args?: string[];
  uiUrl: string | null;
  stop: () => Promise<void>;
}

/**
 * Temporal's dev server (`temporal server start-dev`): SQLite under the data directory, the Web UI, and
 * the project's search attributes registered. Started from TEMPORAL_CLI_PATH (provisioned by
 * scripts/provision-temporal.sh); without one, the SDK's test package downloads the CLI itself.
 */
export async function startTemporalDevServer(opts: {
  dataDir: string;
  port: number;
  uiPort: number | null;
  cliPath?: string;
  /** More `start-dev` flags, e.g. `--sqlite-pragma journal_mode=wal` for the benchmark. */
  extraArgs?: string[];
  log?: (line: string) => void;
  /** The codec server the Web UI decodes payloads through (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Its own process group, so Ctrl-C at a terminal reaches only the parent, which stops it last (`npm start`). */
  ownProcessGroup?: boolean;
}): Promise<TemporalDevServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const dbFile = path.join(opts.dataDir, 'temporal.sqlite');
  const address = `127.0.0.1:${opts.port}`;
  const searchAttributes = searchAttributeDefinitions.flatMap((d) => ['--search-attribute', d]);
  // The server settings deploy/temporal/dynamicconfig.yaml gives a real server, so both behave alike.
  const dynamicConfig = Object.entries(SERVER_DYNAMIC_CONFIG).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`]);
  const codecArgs = opts.uiCodecEndpoint ? ['--ui-codec-endpoint', opts.uiCodecEndpoint] : [];
  const uiArgs = opts.uiPort ? ['--ui-port', String(opts.uiPort), ...codecArgs] : ['--headless'];
  const args = [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--db-filename', dbFile,
    '--log-level', 'warn', ...uiArgs, ...searchAttributes, ...dynamicConfig, ...(opts.extraArgs ?? []),
  ];
  const uiUrl = opts.uiPort ? `http://localhost:${opts.uiPort}` : null;

  if (!opts.cliPath) {
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port: opts.port,
        ui: Boolean(opts.uiPort),
        uiPort: opts.uiPort ?? undefined,
        dbFilename: dbFile,
        extraArgs: [...(opts.uiPort ? codecArgs : []), ...searchAttributes, ...dynamicConfig, ...(opts.extraArgs ?? [])],
      },
    });
    return { address, uiUrl, stop: () => env.teardown() };
  }

  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup ?? false });
  child.stdout?.on('data', (d) => opts.log?.(String(d).trimEnd()));
  child.stderr?.on('data', (d) => opts.log?.(String(d).trimEnd()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A parent that ends without stop() (an uncaught error) must not leave the server behind.
  const orphanGuard = () => child.kill('SIGTERM');
  process.once('exit', orphanGuard);
  void exited.then(() => process.off('exit', orphanGuard));
  await waitUntilServing(address, exited);
  return { address, uiUrl, args, stop: () => stopChild(child, exited) };
}

async function waitUntilServing(address: string, exited: Promise<number | null>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let lastError: unknown;
  let dead: number | null | undefined;
  void exited.then((code) => (dead = code));
  while (Date.now() < deadline) {
    if (dead !== undefined) throw new Error(`temporal dev server exited with code ${dead}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`temporal dev server did not start at ${address}: ${String(lastError)}`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timeout);
}
