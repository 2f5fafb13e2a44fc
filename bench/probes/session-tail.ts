/**
 * Probe for (a)'s tail, not part of `npm run bench`: the compiled API at a fixed open-loop rate, with
 * each request's due time and latency, the generator's own event-loop delay, new TLS sockets, and
 * PostgreSQL's checkpoints, so a tail can be placed in time and told apart from the generator.
 */
import https from 'node:https';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freePort } from '../../src/dev/free-port.js';
import { load } from '../load.js';
import { openLoop, percentile } from '../open-loop.js';
import { spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';

async function main() {
  const { build, infra, appEnv: env, business } = await startProbe();
  const appEnv = { ...env, NODE_OPTIONS: process.env.PROBE_API_NODE_OPTIONS ?? '' };
  const [apiPort, adminPort] = await Promise.all([freePort(), freePort()]);
  const api = await spawnService(path.join(build.dir, 'api.js'), { ...appEnv, PORT: String(apiPort), ADMIN_PORT: String(adminPort) }, apiPort);
  const { key } = await business('Probe');
  const body = JSON.stringify({ description: 'Benchmark order', customer: { email: 'bench@example.com' }, items: [{ name: 'One', price: 10.5, quantity: 1 }, { name: 'Two', price: 3.25, quantity: 2 }, { name: 'Three', price: 99.99, quantity: 3 }] });
  const url = `https://127.0.0.1:${apiPort}/api/checkout/sessions`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const sql = (q: string) => infra.orm.em.getConnection().execute<any[]>(q);
  await load({ url, method: 'POST', headers, body, durationSec: 3, connections: 32 });
  const rate = Number(process.env.PROBE_RATE ?? 1200);
  const seconds = Number(process.env.PROBE_SECONDS ?? 10);
  for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 3); round++) {
    const agent = new https.Agent({ ca: infra.ca, keepAlive: true, maxSockets: 256 });
    let sockets = 0;
    const [cp0] = await sql('select num_timed + num_requested as n from pg_stat_checkpointer');
    const metrics = async () => (await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text()).split('\n');
    const gcBuckets = (lines: string[]) => Object.fromEntries(lines.filter((l) => l.startsWith('nodejs_gc_duration_seconds_bucket')).map((l) => [l.split(' ')[0], Number(l.split(' ')[1])]));
    const g0 = gcBuckets(await metrics());
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const samples: [number, number][] = [];
    const t0 = performance.now();
    await openLoop(rate, rate * seconds, (_i, due) => new Promise<void>((resolve) => {
      const req = https.request(url, { method: 'POST', headers, agent, servername: 'localhost' }, (res) => {
        res.resume();
        res.on('end', () => { samples.push([due - t0, performance.now() - due]); resolve(); });
      });
      req.on('socket', (s) => { if (!(s as any).__seen) { (s as any).__seen = true; sockets++; } });
      req.on('error', () => resolve());
      req.end(body);
    }));
    delay.disable();
    agent.destroy();
    const m1 = await metrics();
    const g1 = gcBuckets(m1);
    const lag = m1.filter((l) => /^nodejs_eventloop_lag_(max|p99)_seconds /.test(l)).map((l) => `${l.split(' ')[0].replace('nodejs_eventloop_lag_', '')}=${(Number(l.split(' ')[1]) * 1000).toFixed(0)}ms`).join(' ');
    const gcs = Object.entries(g1).map(([k, v]) => [k.replace('nodejs_gc_duration_seconds_bucket', ''), v - (g0[k] ?? 0)] as const).filter(([k]) => /le="(0.01|0.1|\+Inf)"/.test(k)).map(([k, v]) => `${k}:${v}`).join(' ');
    process.stdout.write(`  API loop ${lag}; GCs (cumulative by bucket) ${gcs}\n`);
    const [cp1] = await sql('select num_timed + num_requested as n from pg_stat_checkpointer');
    const lat = samples.map((s) => s[1]);
    const slow = samples.filter((s) => s[1] > 20).map((s) => Math.round(s[0] / 100) / 10);
    const buckets: Record<string, number> = {};
    for (const t of slow) buckets[t.toFixed(1)] = (buckets[t.toFixed(1)] ?? 0) + 1;
    process.stdout.write(`round ${round}: p50 ${percentile(lat, 50).toFixed(1)} p99 ${percentile(lat, 99).toFixed(1)} max ${Math.max(...lat).toFixed(0)} ms; sockets ${sockets}; generator loop delay max ${(delay.max / 1e6).toFixed(0)} ms p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms; checkpoints ${cp1.n - cp0.n}; >20 ms by 100 ms slot: ${JSON.stringify(buckets)}\n`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  await stopService(api);
  await infra.stop();
  process.exit(0);
}
void main();
