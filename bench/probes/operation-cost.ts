/**
 * Probe, not part of `npm run bench`: CPU per operation by process (worker, API, Temporal, PostgreSQL,
 * this process) for refunds, webhook deliveries and F4's one-activity workflows, each at a rate the
 * machine keeps up with, so the figure is a cost, not a throughput on a noisy machine.
 * PROBE_WORKER_NODE_OPTIONS sets the worker's V8 and preload options.
 */
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { cpuByGroup as cpuOf, perOperation, type CpuGroups } from '../cpu.js';
import { floorWorkflowCompletions } from '../floors/temporal.js';
import { jsonClient } from '../open-loop.js';
import { quiet, refundsScenario, startReceivers, webhookScenario } from '../scenarios.js';
import { spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';

async function main() {
  const { build, infra, appEnv, business: mk } = await startProbe();
  const [apiPort, apiAdmin, workerAdmin] = await Promise.all([freePort(), freePort(), freePort()]);
  const worker = await spawnService(path.join(build.dir, 'worker.js'), {
    ...appEnv, ADMIN_PORT: String(workerAdmin), MALLOC_ARENA_MAX: '2',
    NODE_OPTIONS: process.env.PROBE_WORKER_NODE_OPTIONS ?? '--max-old-space-size=384 --max-semi-space-size=4',
  }, workerAdmin);
  const api = await spawnService(path.join(build.dir, 'api.js'), { ...appEnv, PORT: String(apiPort), ADMIN_PORT: String(apiAdmin) }, apiPort);
  const cpuByGroup = () => cpuOf({ api: api.pid, workers: [worker.pid] });
  const [shop, hooks] = [await mk('Refunds'), await mk('Hooks')];
  const client = jsonClient(`https://127.0.0.1:${apiPort}`, infra.ca);
  const receivers = await startReceivers(infra.tls);
  // Monotonic microseconds, the clock V8's CPU profiles are stamped with: a window to slice a profile by.
  const now = () => Number(process.hrtime.bigint() / 1000n);
  let windowStart = now();
  const report = (what: string, n: number, before: CpuGroups, after: CpuGroups, extra: string) => {
    process.stdout.write(`WINDOW ${what} ${windowStart} ${now()}\n`);
    const { all, ...per } = perOperation(before, after, n);
    process.stdout.write(`${what}: CPU ms per operation: ${Object.entries(per).map(([k, v]) => `${k} ${v}`).join(', ')}; all ${all} (${extra})\n`);
  };
  const rate = Number(process.env.PROBE_RATE ?? 10);
  const count = Number(process.env.PROBE_COUNT ?? 200);
  let urls = receivers.urls;
  for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 2); round++) {
    await quiet(infra.orm);
    let before = cpuByGroup();
    windowStart = now();
    const f4 = await floorWorkflowCompletions(infra.temporalAddress, 8000, 8);
    report('F4 workflow (probe = its worker)', f4 * 8, before, cpuByGroup(), `${f4}/s with 8 in flight`);
    await quiet(infra.orm);
    // refundsScenario pays its sessions first; only the refunds are counted, so the CPU is read around them.
    const b = await refundsScenario(client, infra.orm, shop.key, shop.id, rate, count, {
      beforeRefunds: () => {
        before = cpuByGroup();
        windowStart = now();
      },
    });
    report('refund', b.refunds, before, cpuByGroup(), `${b.completionsPerSec}/s offered ${rate}/s, p50 ${b.p50Ms} ms`);
    await quiet(infra.orm);
    before = cpuByGroup();
    windowStart = now();
    const c = await webhookScenario(client, infra.orm, hooks.key, hooks.id, urls, rate / 10, count / 10, receivers.urls.length);
    urls = [];
    report('webhook delivery', c.deliveries, before, cpuByGroup(), `${c.deliveriesPerSec}/s, commit → first attempt p50 ${c.commitToFirstAttemptP50Ms} ms (commit → fan-out ${c.commitToFanOutP50Ms}, fan-out → attempt ${c.fanOutToFirstAttemptP50Ms})`);
  }
  await receivers.close();
  await stopService(api);
  await stopService(worker);
  await infra.stop();
  process.exit(0);
}
void main();
