/**
 * Probe, not part of `npm run bench`: commit → first webhook attempt, split at every hop, for one or more
 * builds of the worker measured in turn on the same infrastructure (A/B on a shared machine: the builds
 * alternate, and their order flips every round). Each hop's moment comes from its own record:
 *
 *   commit          the producer's `flush` returned (the event and its outbox row, no fast path)
 *   claim           the relay claimed the outbox row (its `claimed_until` less the 30 s claim)
 *   insert          the fan-out inserted the deliveries (`webhook_deliveries.created_at`)
 *   started         WorkflowExecutionStarted, in the delivery's history
 *   task            the first WorkflowTaskStarted (with an eager start, the start's own moment)
 *   attempt         the attempt's `attempted_at`, taken just before the POST
 *   post            the receiver read the POST's headers
 *
 * PROBE_DISTS="label=dir,label=dir" names the builds (`node --import tsx scripts/build.ts --out-dir dir`);
 * without it, the current tree's. PROBE_ROUNDS (3), PROBE_EVENTS (20 a shape), PROBE_RATE (events/s, 1).
 * Shapes: `burst`, each event to 10 endpoints (the bench's (c) at 10 deliveries/s), and `single`, each
 * event to one endpoint. Writes bench/results/<date>-first-attempt.json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { newId } from '../../src/domain/ids.js';
import { freePort } from '../../src/dev/free-port.js';
import { recordEvent } from '../../src/modules/events/index.js';
import { webhookDeliveryWorkflowId } from '../../contracts/workflow-ids.js';
import { jsonClient, openLoop, percentile } from '../open-loop.js';
import { quiet, startReceivers } from '../scenarios.js';
import { peakRssMb, spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';

const HOPS = ['commit', 'claim', 'insert', 'started', 'task', 'attempt', 'post'] as const;
type Hop = (typeof HOPS)[number];
type Timeline = Record<Hop | 'taskDone' | 'activity', number>;

const ms = (value: Date | string) => new Date(value).getTime();
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const round1 = (x: number) => Math.round(x * 10) / 10;

/** temporal.api.enums.v1.EventType's numbers, as fetchHistory returns them. */
const WORKFLOW_EXECUTION_STARTED = 1;
const WORKFLOW_TASK_STARTED = 6;
const WORKFLOW_TASK_COMPLETED = 7;
const ACTIVITY_TASK_STARTED = 11;

/**
 * The history's moments: its start, its first workflow task's start and completion, and its first
 * activity's start (none when the attempt is a local activity: it runs inside the first task).
 */
async function historyMoments(temporal: Client, deliveryId: string) {
  const history = await temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId)).fetchHistory();
  const at = (type: number) => {
    const t = history.events?.find((e) => e.eventType === type)?.eventTime;
    return t ? Number(t.seconds) * 1000 + Math.round((t.nanos ?? 0) / 1e6) : NaN;
  };
  return {
    started: at(WORKFLOW_EXECUTION_STARTED),
    task: at(WORKFLOW_TASK_STARTED),
    taskDone: at(WORKFLOW_TASK_COMPLETED),
    activity: at(ACTIVITY_TASK_STARTED),
  };
}

async function measure(orm: MikroORM, temporal: Client, posts: Map<string, number>, businessId: string, events: number, rate: number, endpoints: number) {
  const commits = new Map<string, number>();
  await openLoop(rate, events, async () => {
    const em = orm.em.fork();
    const event = recordEvent(em, { businessId, livemode: false }, 'refund.created', { refundId: newId('ref'), amount: 100 });
    await em.flush();
    commits.set(event.id, Date.now());
  });
  await quiet(orm);
  const rows = await orm.em.getConnection().execute<{ id: string; event_id: string; claimed: Date; inserted: Date; attempted: Date }[]>(
    `select d.id, d.event_id, o.claimed_until - interval '30 seconds' as claimed, d.created_at as inserted, min(a.attempted_at) as attempted
     from webhook_deliveries d
     join outbox o on o.message->>'kind' = 'event.fanout' and o.message->>'eventId' = d.event_id
     join webhook_attempts a on a.delivery_id = d.id
     where d.event_id in (?) group by d.id, o.claimed_until`,
    [[...commits.keys()]],
  );
  if (rows.length !== events * endpoints) throw new Error(`expected ${events * endpoints} deliveries, found ${rows.length}`);
  const timelines: Timeline[] = [];
  for (let i = 0; i < rows.length; i += 8) {
    const batch = rows.slice(i, i + 8);
    const moments = await Promise.all(batch.map((r) => historyMoments(temporal, r.id)));
    batch.forEach((r, j) =>
      timelines.push({
        commit: commits.get(r.event_id)!,
        claim: ms(r.claimed),
        insert: ms(r.inserted),
        ...moments[j],
        attempt: ms(r.attempted),
        post: posts.get(r.id) ?? NaN,
      }),
    );
  }
  return timelines;
}

/** p50 and p99 of commit → POST, and the p50 of each hop. */
function summarise(timelines: Timeline[]) {
  const span = (from: keyof Timeline, to: keyof Timeline) => timelines.map((t) => t[to] - t[from]).filter((x) => Number.isFinite(x));
  const hops: Record<string, number> = Object.fromEntries(HOPS.slice(1).map((hop, i) => [`${HOPS[i]}→${hop}`, percentile(span(HOPS[i], hop), 50)]));
  return {
    deliveries: timelines.length,
    commitToPostP50: percentile(span('commit', 'post'), 50),
    commitToPostP99: percentile(span('commit', 'post'), 99),
    commitToAttemptP50: percentile(span('commit', 'attempt'), 50),
    commitToAttemptP99: percentile(span('commit', 'attempt'), 99),
    hopP50: { ...hops, 'task→taskDone': percentile(span('task', 'taskDone'), 50), 'task→activity': percentile(span('task', 'activity'), 50) } as Record<string, number>,
  };
}

async function main() {
  const { build, infra, appEnv, business: mk } = await startProbe();
  const dists = process.env.PROBE_DISTS
    ? process.env.PROBE_DISTS.split(',').map((d) => {
        const [label, dir] = d.split('=');
        return { label, dir: path.resolve(dir) };
      })
    : [{ label: 'current', dir: build.dir }];
  const rounds = Number(process.env.PROBE_ROUNDS ?? 3);
  const events = Number(process.env.PROBE_EVENTS ?? 20);
  const rate = Number(process.env.PROBE_RATE ?? 1);

  const posts = new Map<string, number>();
  const receivers = await startReceivers(infra.tls, 10, (id, at) => posts.has(id) || posts.set(id, at));
  const [apiPort, apiAdmin] = await Promise.all([freePort(), freePort()]);
  const api = await spawnService(path.join(dists[0].dir, 'api.js'), { ...appEnv, PORT: String(apiPort), ADMIN_PORT: String(apiAdmin) }, apiPort);
  const client = jsonClient(`https://127.0.0.1:${apiPort}`, infra.ca);
  const [burst, single] = [await mk('Burst'), await mk('Single')];
  const subscribe = async (biz: { key: string }, urls: string[]) => {
    for (const url of urls) {
      const res = await client.post('/api/webhooks', { url, events: ['*'] }, biz.key);
      if (res.status !== 201) throw new Error(`webhook endpoint create answered ${res.status}`);
    }
  };
  await subscribe(burst, receivers.urls);
  await subscribe(single, receivers.urls.slice(0, 1));
  await stopService(api);
  const temporal = new Client({ connection: await Connection.connect({ address: infra.temporalAddress }) });

  const results: Record<string, unknown>[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const dist of round % 2 ? [...dists].reverse() : dists) {
      const workerAdmin = await freePort();
      const worker = await spawnService(path.join(dist.dir, 'worker.js'), {
        ...appEnv, ADMIN_PORT: String(workerAdmin), MALLOC_ARENA_MAX: '2',
        NODE_OPTIONS: '--max-old-space-size=384 --max-semi-space-size=4',
      }, workerAdmin);
      await measure(infra.orm, temporal, posts, burst.id, 3, rate, 10); // warm: connections, the workflow bundle's first runs
      for (const [shape, biz, endpoints] of [['burst', burst, 10], ['single', single, 1]] as const) {
        const loadBefore = loadAverage();
        const timelines = await measure(infra.orm, temporal, posts, biz.id, events, rate, endpoints);
        const summary = summarise(timelines);
        // Each delivery's moments, in ms after its commit (the commit itself as epoch ms), one row each, so an
        // event's deliveries read side by side.
        const columns = Object.keys(timelines[0]) as (keyof Timeline)[];
        const rows = timelines.map((t) => columns.map((k) => (k === 'commit' ? t.commit : t[k] - t.commit)));
        const result = { variant: dist.label, round, shape, loadBefore, loadAfter: loadAverage(), ...summary, timelines: { columns, rows } };
        results.push(result);
        process.stdout.write(
          `${dist.label} r${round} ${shape}: commit→POST p50 ${summary.commitToPostP50} p99 ${summary.commitToPostP99} ms ` +
            `(commit→attempt ${summary.commitToAttemptP50}/${summary.commitToAttemptP99}); load ${loadBefore.join(' ')}; ` +
            `hops p50 ${Object.entries(summary.hopP50).map(([k, v]) => `${k} ${v}`).join(', ')}\n`,
        );
      }
      process.stdout.write(`${dist.label} r${round}: worker peak RSS ${peakRssMb(worker.pid)} MB\n`);
      await stopService(worker);
      await quiet(infra.orm);
    }
  }
  process.stdout.write('\nmedian over rounds (p50 of commit → POST, p99, hops):\n');
  for (const dist of dists) {
    for (const shape of ['burst', 'single']) {
      const mine = results.filter((r) => r.variant === dist.label && r.shape === shape) as unknown as ReturnType<typeof summarise>[];
      const med = (f: (r: ReturnType<typeof summarise>) => number) => round1(percentile(mine.map(f), 50));
      process.stdout.write(`${dist.label} ${shape}: p50 ${med((r) => r.commitToPostP50)} p99 ${med((r) => r.commitToPostP99)} ms; ` +
        `${Object.keys(mine[0].hopP50).map((k) => `${k} ${med((r) => r.hopP50[k])}`).join(', ')}\n`);
    }
  }
  const out = path.join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-first-attempt${process.env.PROBE_OUT ? `-${process.env.PROBE_OUT}` : ''}.json`);
  // Indented, but each row of numbers on one line.
  const text = JSON.stringify({ at: new Date().toISOString(), dists, rounds, events, rate, results }, null, 2);
  writeFileSync(out, text.replace(/\[\s+([-\d.,\snul]+?)\s+\]/g, (_, row: string) => `[${row.split(/,\s*/).join(', ')}]`));
  process.stdout.write(`written to ${out}\n`);
  await temporal.connection.close();
  await receivers.close();
  await infra.stop();
  process.exit(0);
}
void main();
