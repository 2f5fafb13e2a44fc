/**
 * Probe for (a)'s tail, not part of `npm run bench`: the open-loop p99 of session create at one rate,
 * split by cause. Round by round, at the same rate and with the same generator (bench/open-loop.ts, its
 * pool opened first), in an order that flips each round:
 *
 *   F1         bare Koa over HTTPS (bench/floors/bare-koa.ts): the generator, TLS and loopback alone
 *   reference  the by-hand reference (bench/floors/session-writes.ts): that plus PostgreSQL's work
 *   api        the compiled API
 *
 * each with PostgreSQL's `synchronous_commit` on, as it runs, and the reference and the API again with it
 * off (a commit then waits for no WAL flush): the difference is the WAL's fsync. The API's GC pauses are
 * recorded inside it (a PerformanceObserver installed over the inspector), and its p99 is taken again with
 * each request's latency less the pauses that overlapped it: that difference is its GC's. What is left of
 * the API's p99 over the reference's is its own work queueing on two cores shared with PostgreSQL, the
 * generator and every other process (the load average is kept beside each figure).
 *
 * PROBE_API_VARIANTS (`label=V8 options|…`) measures APIs of one build with other V8 options in turn, each
 * beside the same reference. PROBE_RATE (default: half the first API's max, measured first), PROBE_SECONDS
 * (10), PROBE_ROUNDS (3).
 * Writes bench/results/<date>-session-tail[-PROBE_OUT].json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { connectInspector, type Inspector } from '../inspector.js';
import { load } from '../load.js';
import { fixedRateLatency, percentile } from '../open-loop.js';
import { API_NODE_FLAGS, API_NODE_OPTIONS } from '../pass.js';
import { nodeOptionsAndFlags, spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';

const SECONDS = Number(process.env.PROBE_SECONDS ?? 10);
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Installs a GC recorder in the inspected process; returns its clock's origin (epoch ms). */
async function recordGcs(inspector: Inspector): Promise<number> {
  const expression = `(() => {
    globalThis.__benchGcs = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.__benchGcs.push([e.startTime, e.duration, e.detail?.kind]); }).observe({ entryTypes: ['gc'] });
    return performance.timeOrigin;
  })()`;
  const { result } = await inspector.send<{ result: { value: number } }>('Runtime.evaluate', { expression, returnByValue: true });
  return result.value;
}

/** The GC pauses recorded since the last call, as [start (epoch ms), duration (ms), kind]. */
async function takeGcs(inspector: Inspector, origin: number): Promise<[number, number, number][]> {
  const { result } = await inspector.send<{ result: { value: [number, number, number][] } }>('Runtime.evaluate', {
    expression: 'globalThis.__benchGcs.splice(0)',
    returnByValue: true,
  });
  return result.value.map(([start, duration, kind]) => [origin + start, duration, kind]);
}

/** Each latency less the GC pauses that overlapped its request (from its due moment to its answer). */
function withoutGc(samples: [number, number][], gcs: [number, number, number][]): number[] {
  return samples.map(([due, latency]) => {
    let paused = 0;
    for (const [start, duration] of gcs) paused += Math.max(0, Math.min(due + latency, start + duration) - Math.max(due, start));
    return Math.max(0, latency - paused);
  });
}

async function main() {
  const { build, infra, appEnv, business } = await startProbe();
  const { key } = await business('Tail');
  const body = JSON.stringify({
    description: 'Benchmark order',
    customer: { email: 'bench@example.com' },
    items: [{ name: 'One', price: 10.5, quantity: 1 }, { name: 'Two', price: 3.25, quantity: 2 }, { name: 'Three', price: 99.99, quantity: 3 }],
  });
  const post = { method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body };
  const sql = (q: string) => infra.orm.em.getConnection().execute<Record<string, string>[]>(q);
  const tlsEnv = { TLS_CERT: infra.tls.certFile, TLS_KEY: infra.tls.keyFile };

  const [f1Port, refPort] = [await freePort(), await freePort()];
  const f1 = await spawnService('bench/floors/bare-koa.ts', { ...tlsEnv, PORT: String(f1Port) });
  const ref = await spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(refPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'work' });
  // PROBE_API_VARIANTS="label=V8 options|…": APIs of the same build with other V8 options, measured in turn.
  const variants = (process.env.PROBE_API_VARIANTS ?? `api=${process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS} ${API_NODE_FLAGS.join(' ')}`).split('|').map((v) => {
    const [label, ...options] = v.split('=');
    return { label, options: options.join('=') };
  });
  const apis: { label: string; options: string; child: Awaited<ReturnType<typeof spawnService>>; inspector: Inspector; origin: number; url: string }[] = [];
  for (const { label, options } of variants) {
    const [apiPort, apiAdmin, apiInspect] = [await freePort(), await freePort(), await freePort()];
    const { nodeOptions, flags } = nodeOptionsAndFlags(options);
    const child = await spawnService(path.join(build.dir, 'api.js'), {
      ...appEnv, PORT: String(apiPort), ADMIN_PORT: String(apiAdmin), NODE_OPTIONS: [...nodeOptions, `--inspect=127.0.0.1:${apiInspect}`].join(' '),
    }, apiPort, flags);
    const inspector = await connectInspector(apiInspect);
    apis.push({ label, options, child, inspector, origin: await recordGcs(inspector), url: `https://127.0.0.1:${apiPort}/api/checkout/sessions` });
  }
  const urls: Record<string, string> = { F1: `https://127.0.0.1:${f1Port}/`, reference: `https://127.0.0.1:${refPort}/`, ...Object.fromEntries(apis.map((a) => [a.label, a.url])) };
  const apiOf = (name: string) => apis.find((a) => a.label === name);

  for (const a of apis) await load({ url: a.url, ...post, durationSec: 2, connections: 32 });
  const rate = Number(process.env.PROBE_RATE ?? Math.floor((await load({ url: apis[0].url, ...post, durationSec: 5, connections: 32 })).rps / 2));
  process.stdout.write(`rate ${rate}/s, ${SECONDS} s a run\n`);
  const syncCommit = async (on: boolean) => {
    await sql(on ? 'alter system reset synchronous_commit' : 'alter system set synchronous_commit = off');
    await sql('select pg_reload_conf()');
  };
  const checkpoints = async () => Number((await sql('select (num_timed + num_requested)::text as n from pg_stat_checkpointer'))[0].n);

  const results: Record<string, unknown>[] = [];
  for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 3); round++) {
    const flip = <T>(xs: T[]) => (round % 2 ? [...xs].reverse() : xs);
    for (const sync of flip([true, false])) {
      await syncCommit(sync);
      for (const name of flip([...(sync ? ['F1'] : []), 'reference', ...apis.map((a) => a.label)])) {
        await sql('vacuum analyze checkout_sessions, session_items');
        const loadBefore = loadAverage();
        const checkpointsBefore = await checkpoints();
        const api = apiOf(name);
        if (api) await takeGcs(api.inspector, api.origin);
        const run = await fixedRateLatency({ url: urls[name], ...post, ca: infra.ca, rate, durationSec: SECONDS, keepSamples: true });
        const samples = run.samples ?? [];
        const from = samples[0]?.[0] ?? 0;
        const gcs = api ? (await takeGcs(api.inspector, api.origin)).filter(([start]) => start >= from - 100) : [];
        const result = {
          round, name, synchronousCommit: sync, loadBefore, loadAfter: loadAverage(),
          rps: run.rps, p50: run.p50, p99: run.p99, max: round1(Math.max(...samples.map((s) => s[1]))),
          socketsOpened: run.socketsOpened, generatorDelayMs: run.generatorDelayMs, checkpoints: (await checkpoints()) - checkpointsBefore,
          ...(api
            ? {
                p99WithoutGc: round1(percentile(withoutGc(samples, gcs), 99)),
                gcPauses: { count: gcs.length, totalMs: round1(gcs.reduce((t, g) => t + g[1], 0)), maxMs: round1(Math.max(0, ...gcs.map((g) => g[1]))), majors: gcs.filter((g) => g[2] === 4).length },
              }
            : {}),
        };
        results.push(result);
        process.stdout.write(`${JSON.stringify(result)}\n`);
      }
    }
    await syncCommit(true);
  }
  // The split, round by round and API by API: each cause's share of its p99.
  const get = (round: number, name: string, sync: boolean) => results.find((r) => r.round === round && r.name === name && r.synchronousCommit === sync) as Record<string, number>;
  const split = [...new Set(results.map((r) => r.round as number))].flatMap((round) =>
    apis.map(({ label }) => {
      const [f1p, refOn, refOff, apiOn, apiOff] = [get(round, 'F1', true), get(round, 'reference', true), get(round, 'reference', false), get(round, label, true), get(round, label, false)];
      return {
        round,
        api: label,
        'F1 p99 (generator, TLS, loopback)': f1p.p99,
        'reference p99': refOn.p99,
        'reference p99, synchronous_commit off': refOff.p99,
        'api p99': apiOn.p99,
        'api p99, synchronous_commit off': apiOff.p99,
        'api p99 less its GC pauses': apiOn.p99WithoutGc,
        "WAL fsync's share of the reference's p99": round1(refOn.p99 - refOff.p99),
        "the API's own, over the reference": round1(apiOn.p99 - refOn.p99),
        "of which its GC's": round1(apiOn.p99 - apiOn.p99WithoutGc),
      };
    }),
  );
  process.stdout.write(`\n${split.map((s) => JSON.stringify(s)).join('\n')}\n`);
  const out = path.join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-session-tail${process.env.PROBE_OUT ? `-${process.env.PROBE_OUT}` : ''}.json`);
  writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), rate, seconds: SECONDS, apis: variants, split, results }, null, 2)}\n`);
  process.stdout.write(`written to ${out}\n`);
  for (const a of apis) {
    a.inspector.close();
    await stopService(a.child);
  }
  f1.kill('SIGKILL');
  ref.kill('SIGKILL');
  await infra.stop();
  process.exit(0);
}
void main();
