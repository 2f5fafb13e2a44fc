/**
 * Probe for (a), not part of `npm run bench`: where one session create's CPU and memory go, in the
 * compiled API and in its by-hand reference (bench/floors/session-writes.ts), side by side. Each process
 * runs with the inspector on; for each, round by round and interleaved, under flat-out creates (32
 * connections, after 2 s of warm-up):
 *
 *   cpu      CPU per create by process (this one, PostgreSQL), from /proc, with no profiler attached
 *   bytes    bytes allocated per create (a sampling heap profile that keeps collected objects), by place
 *   profile  a CPU profile: self time per create by place (a package, a service file, GC) and by function
 *
 * PROBE_DISTS (`label=dir,…`) names builds of the API to measure in turn (`node --import tsx
 * scripts/build.ts --out-dir dir`); without it, the current tree's. PROBE_SECONDS (5) a window,
 * PROBE_ROUNDS (2), PROBE_TOP (25) functions listed, PROBE_SURVIVORS=1 counts only the bytes that outlived a
 * scavenge (what the old space grows by), PROBE_API_ENV (`NAME=value,…`, say LOG_LEVEL=info)
 * added to the API's environment. PROBE_PROFILE=0 measures the CPU per create alone (an A/B of builds
 * over more rounds); PROBE_SAVE_DIR keeps each window's `.cpuprofile` and `.heapprofile` (DevTools opens
 * both). Writes bench/results/<date>-session-profile[-PROBE_OUT].json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { cpuByGroup, perOperation } from '../cpu.js';
import { bytesByPlace, connectInspector, cpuByPlace, profileAllocations, profileCpu, type Inspector } from '../inspector.js';
import { load } from '../load.js';
import { API_NODE_FLAGS, API_NODE_OPTIONS } from '../pass.js';
import { spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';

const SECONDS = Number(process.env.PROBE_SECONDS ?? 5);
const TOP = Number(process.env.PROBE_TOP ?? 25);
/** PROBE_SURVIVORS=1: the bytes counted are only those that outlived a scavenge (bench/inspector.ts). */
const SURVIVORS = process.env.PROBE_SURVIVORS === '1';
const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** A process's user and system CPU so far (ms). */
const userSystemMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
};
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

/** The largest entries of a map, each divided by `per`, as `[key, value]` rows. */
const top = (m: Map<string, number>, per: number, n: number, digits: (x: number) => number) =>
  [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, digits(v / per)] as const);

interface Target {
  name: string;
  url: string;
  pid: number;
  inspector: Inspector;
  /** The API's admin port, whose /metrics counts its GCs (the reference has none). */
  adminPort?: number;
}

/** GCs and their seconds so far by kind, from the API's own prom-client metrics. */
async function gcByKind(adminPort?: number): Promise<Record<string, { count: number; seconds: number }>> {
  if (!adminPort) return {};
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  const kinds: Record<string, { count: number; seconds: number }> = {};
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} ([\d.e+-]+)$/gm)) {
    kinds[m[2]] ??= { count: 0, seconds: 0 };
    if (m[1] === 'sum') kinds[m[2]].seconds = Number(m[3]);
    else kinds[m[2]].count = Number(m[3]);
  }
  return kinds;
}

async function main() {
  const { build, infra, appEnv, business } = await startProbe();
  const { key } = await business('Profile');
  const body = JSON.stringify({
    description: 'Benchmark order',
    customer: { email: 'bench@example.com' },
    items: [{ name: 'One', price: 10.5, quantity: 1 }, { name: 'Two', price: 3.25, quantity: 2 }, { name: 'Three', price: 99.99, quantity: 3 }],
  });
  const post = { method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body };
  const extraApiEnv = Object.fromEntries((process.env.PROBE_API_ENV ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));

  // PROBE_DISTS="label=dir,…": builds of the API measured in turn beside the reference; without it, the current tree's.
  const dists = process.env.PROBE_DISTS
    ? process.env.PROBE_DISTS.split(',').map((d) => {
        const [label, dir] = d.split('=');
        return { label, dir: path.resolve(dir) };
      })
    : [{ label: 'api', dir: build.dir }];
  const [refPort, refInspect] = [await freePort(), await freePort()];
  const ref = await spawnService('bench/floors/session-writes.ts', {
    TLS_CERT: infra.tls.certFile, TLS_KEY: infra.tls.keyFile, PORT: String(refPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'work',
    NODE_OPTIONS: `--inspect=127.0.0.1:${refInspect}`,
  });
  const targets: Target[] = [{ name: 'reference', url: `https://127.0.0.1:${refPort}/`, pid: ref.pid!, inspector: await connectInspector(refInspect) }];
  const apis = [];
  for (const dist of dists) {
    const [apiPort, apiAdmin, apiInspect] = [await freePort(), await freePort(), await freePort()];
    const api = await spawnService(path.join(dist.dir, 'api.js'), {
      ...appEnv, ...extraApiEnv, PORT: String(apiPort), ADMIN_PORT: String(apiAdmin),
      NODE_OPTIONS: `${process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS} --inspect=127.0.0.1:${apiInspect}`,
    }, apiPort, API_NODE_FLAGS);
    apis.push(api);
    targets.push({ name: dist.label, url: `https://127.0.0.1:${apiPort}/api/checkout/sessions`, pid: api.pid!, inspector: await connectInspector(apiInspect), adminPort: apiAdmin });
  }

  const results: Record<string, unknown>[] = [];
  for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 2); round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) {
      const loadBefore = loadAverage();
      const run = () => load({ url: t.url, ...post, durationSec: SECONDS, connections: 32 });
      await load({ url: t.url, ...post, durationSec: 2, connections: 32 });
      const before = cpuByGroup({ api: t.pid, workers: [] });
      const own = userSystemMs(t.pid);
      const gcBefore = await gcByKind(t.adminPort);
      const plain = await run();
      const ownAfter = userSystemMs(t.pid);
      const gcAfter = await gcByKind(t.adminPort);
      const n = plain.rps * SECONDS;
      // Per kind: creates per collection, and µs of pause per create.
      const gc = Object.fromEntries(Object.entries(gcAfter).map(([kind, a]) => {
        const runs = a.count - (gcBefore[kind]?.count ?? 0);
        return [kind, { createsPerGc: runs ? Math.round(n / runs) : null, usPerCreate: round1(((a.seconds - (gcBefore[kind]?.seconds ?? 0)) * 1e6) / n) }];
      }));
      const cpu = perOperation(before, cpuByGroup({ api: t.pid, workers: [] }), plain.rps * SECONDS);
      const split = { user: round3((ownAfter.user - own.user) / (plain.rps * SECONDS)), system: round3((ownAfter.system - own.system) / (plain.rps * SECONDS)) };
      // PROBE_PROFILE=0: the CPU per create alone, for an A/B of builds over more rounds.
      const profiled = process.env.PROBE_PROFILE !== '0';
      let allocated = 0;
      let creates = 0;
      const heap = profiled ? await profileAllocations(t.inspector, async () => (allocated = (await run()).rps * SECONDS), 4096, SURVIVORS) : undefined;
      const bytes = heap ? bytesByPlace(heap) : { places: new Map<string, number>(), functions: new Map<string, number>(), totalBytes: 0 };
      const profile = profiled ? await profileCpu(t.inspector, async () => (creates = (await run()).rps * SECONDS)) : undefined;
      const self = profile ? cpuByPlace(profile) : { places: new Map<string, number>(), functions: new Map<string, number>() };
      if (process.env.PROBE_SAVE_DIR && profile) {
        mkdirSync(process.env.PROBE_SAVE_DIR, { recursive: true });
        writeFileSync(path.join(process.env.PROBE_SAVE_DIR, `${t.name}-${round}.cpuprofile`), JSON.stringify(profile));
        writeFileSync(path.join(process.env.PROBE_SAVE_DIR, `${t.name}-${round}.heapprofile`), JSON.stringify({ head: heap }));
      }
      const result = {
        target: t.name,
        round,
        loadBefore,
        loadAfter: loadAverage(),
        createsPerSec: plain.rps,
        cpuMsPerCreate: { process: cpu.api, ...split, postgres: cpu.postgres, generator: cpu.bench },
        gc,
        profiledCreates: creates,
        bytesPerCreate: allocated ? Math.round(bytes.totalBytes / allocated) : null,
        bytesByPlace: top(bytes.places, allocated, TOP, Math.round),
        bytesByFunction: top(bytes.functions, allocated, TOP, Math.round),
        // Self time in the profile, µs per create, by where the code lives ((idle) is the process waiting).
        selfUsByPlace: top(self.places, creates / 1000, TOP, round1),
        selfUsByFunction: top(self.functions, creates / 1000, TOP, round1),
      };
      results.push(result);
      process.stdout.write(
        `\n${t.name} round ${round} (load ${loadBefore.join(' ')}): ${plain.rps}/s; CPU ms per create: ${t.name} ${cpu.api} (user ${split.user}, system ${split.system}), PostgreSQL ${cpu.postgres}, generator ${cpu.bench}; ` +
          `${result.bytesPerCreate} bytes allocated per create; GC ${JSON.stringify(gc)}\n` +
          `  self µs per create by place: ${result.selfUsByPlace.map(([k, v]) => `${k} ${v}`).join(', ')}\n` +
          `  bytes per create by place: ${result.bytesByPlace.map(([k, v]) => `${k} ${v}`).join(', ')}\n` +
          `  functions (self µs per create): ${result.selfUsByFunction.map(([k, v]) => `${k} ${v}`).join('; ')}\n` +
          `  functions (bytes per create): ${result.bytesByFunction.map(([k, v]) => `${k} ${v}`).join('; ')}\n`,
      );
    }
  }
  const out = path.join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-session-profile${process.env.PROBE_OUT ? `-${process.env.PROBE_OUT}` : ''}.json`);
  writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), seconds: SECONDS, apiEnv: extraApiEnv, results }, null, 2)}\n`);
  process.stdout.write(`written to ${out}\n`);
  targets.forEach((t) => t.inspector.close());
  for (const api of apis) await stopService(api);
  ref.kill('SIGKILL');
  await infra.stop();
  process.exit(0);
}
void main();
