/**
 * Probe for (a), not part of `npm run bench`: the compiled API under flat-out session creates with each
 * of several V8 option sets (PROBE_OPTIONS, `|`-separated), interleaved round by round with the by-hand
 * reference, reporting each run's requests/s, CPU per request (user + system, from /proc) and peak RSS.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { load } from '../load.js';
import { nodeOptionsAndFlags, peakRssMb, spawnService, stopService } from '../stack.js';
import { startProbe } from './probe-stack.js';
import { API_NODE_FLAGS, API_NODE_OPTIONS } from '../pass.js';

/** User and system CPU of a process so far (ms). */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return [(Number(f[11]) * 1000) / 100, (Number(f[12]) * 1000) / 100];
};

async function main() {
  const { build, infra, appEnv, business } = await startProbe();
  const tlsEnv = { TLS_CERT: infra.tls.certFile, TLS_KEY: infra.tls.keyFile };
  const workPort = await freePort();
  const ref = await spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(workPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'work' });
  const { key } = await business('Probe');
  const body = JSON.stringify({ description: 'Benchmark order', customer: { email: 'bench@example.com' }, items: [{ name: 'One', price: 10.5, quantity: 1 }, { name: 'Two', price: 3.25, quantity: 2 }, { name: 'Three', price: 99.99, quantity: 3 }] });
  const post = { method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body };
  const seconds = Number(process.env.PROBE_SECONDS ?? 8);
  const options = (process.env.PROBE_OPTIONS ?? `${API_NODE_OPTIONS} ${API_NODE_FLAGS.join(' ')}`).split('|');
  /** Seconds spent in GC by kind, from the API's own prom-client metrics. */
  const gcSeconds = async (adminPort?: number) => {
    if (!adminPort) return {};
    const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} ([\d.e-]+)/gm)].map((m) => [m[1], Number(m[2])]));
  };
  const measure = async (name: string, url: string, pid: number, adminPort?: number) => {
    await load({ url, ...post, durationSec: 2, connections: 32 });
    const [c0, g0] = [cpuMs(pid), await gcSeconds(adminPort)];
    const r = await load({ url, ...post, durationSec: seconds, connections: 32 });
    const [c1, g1] = [cpuMs(pid), await gcSeconds(adminPort)];
    const n = r.rps * seconds;
    const gc = Object.entries(g1).map(([k, v]) => `${k} ${(((v - (g0[k] ?? 0)) * 1000) / n).toFixed(3)}`).join(', ');
    const line = `${name.padEnd(60)} ${String(r.rps).padStart(5)}/s  CPU ${((c1[0] - c0[0]) / n).toFixed(3)} + ${((c1[1] - c0[1]) / n).toFixed(3)} ms/req  peak RSS ${peakRssMb(pid)} MB${gc ? `  GC ms/req: ${gc}` : ''}${r.non2xx ? ` statuses ${JSON.stringify(r.statuses)}` : ''}\n`;
    process.stdout.write(line);
  };
  for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 2); round++) {
    await measure('reference', `https://127.0.0.1:${workPort}/`, ref.pid!);
    for (const opts of options) {
      const [apiPort, adminPort] = await Promise.all([freePort(), freePort()]);
      const { nodeOptions, flags } = nodeOptionsAndFlags(opts);
      const api = await spawnService(path.join(build.dir, 'api.js'), { ...appEnv, NODE_OPTIONS: nodeOptions.join(' '), PORT: String(apiPort), ADMIN_PORT: String(adminPort) }, apiPort, flags);
      await measure(`api '${opts}'`, `https://127.0.0.1:${apiPort}/api/checkout/sessions`, api.pid!, adminPort);
      await stopService(api);
    }
  }
  ref.kill('SIGKILL');
  await infra.stop();
  process.exit(0);
}
void main();
