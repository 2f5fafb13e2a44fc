/**
 * (p)'s floor, two processes as the service is (bench/floors/workflows.ts has the workflow): with
 * ROLE=api, a bare Koa HTTPS endpoint that sends `POST /<id>` as an update-with-start of
 * benchPayFloorWorkflow and answers `{"data":{"status":"completed"}}` when the update ends, the pay call's
 * Temporal round trip with none of the service's own work (no body parsing, database or processor); with
 * ROLE=worker, the worker that runs it with empty activities.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Koa from 'koa';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { floorPayUpdate } from './workflows.js';

const address = process.env.TEMPORAL_ADDRESS!;
const taskQueue = process.env.TASK_QUEUE!;

async function api() {
  const client = new Client({ connection: await Connection.connect({ address }) });
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.req.resume();
    const id = ctx.path.slice(1);
    const data = await client.workflow.executeUpdateWithStart(floorPayUpdate, {
      args: [id],
      updateId: id,
      // The task queue (new each start) names the workflow: an id used before on the same server would be
      // answered from that run's completed update, with no workflow run at all.
      startWorkflowOperation: new WithStartWorkflowOperation('benchPayFloorWorkflow', { workflowId: `${taskQueue}-${id}`, taskQueue, workflowIdConflictPolicy: 'USE_EXISTING' }),
    });
    ctx.body = { success: true, data };
  });
  const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) }, app.callback());
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
}

async function worker() {
  // The service's worker logs at warn (LOG_LEVEL in the bench); the SDK's info lines would only fill the bench's output.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const empty = async () => {};
  const w = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowsPath: createRequire(import.meta.url).resolve('./workflows.ts'),
    activities: { begin: empty, charge: empty, complete: empty },
  });
  process.once('SIGTERM', () => w.shutdown());
  const running = w.run();
  process.send?.('ready');
  await running;
}

void (process.env.ROLE === 'worker' ? worker() : api()).catch((err) => {
  process.stderr.write(`pay floor (${process.env.ROLE}): ${err?.stack ?? err}\n`);
  process.exit(1);
});
