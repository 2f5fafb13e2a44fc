/**
 * The faults a Temporal cluster must survive, under the rehearsal's load (docs/scaling.md): kill -9 of a
 * history host (its shards move to the other), of a matching host, of a frontend; the killed hosts
 * started again (the shards split again); then every host restarted in turn. Each step says how long
 * until workflows progressed again, and the 503s and retries the load met meanwhile.
 *
 * Shard ownership is read from each history host's Prometheus endpoint: `sharditem_created_count` less
 * `sharditem_removed_count` is the shards it holds now (the `numshards_gauge` is refreshed only on the
 * shard controller's periodic pass, a minute by default, so it lags a move).
 *
 * "Progressed again" is a proxy, said as such in the report: a pay call completed (200) after the fault,
 * and for a history kill, after the survivor owns every shard. A pay answers only once its workflow has
 * run its tasks, so it is a completed workflow task; which shard it was on is not known here (Temporal
 * hashes the workflow id), so for the history kill the step waits for PAYS_AFTER_MOVE pays, each landing
 * on a moved shard with odds of about one in two.
 */
import type { Stats } from './client.js';
import type { LoadFigures } from './load.js';
import { sleep, until } from './proc.js';
import { CLUSTER_SHARDS, type TemporalCluster, type TemporalHost } from './temporal-cluster.js';

const PAYS_AFTER_MOVE = 5;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface FaultResult {
  downMs: number;
  upMs: number;
  clean?: boolean;
  /** Lines under the step in the report: shard split, time to recover, 503s and retries. */
  note: string[];
}

/** The shards a history host holds now, from its metrics; null when it does not answer. */
export async function shardsHeld(host: TemporalHost): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${host.metricsPort}/metrics`, { signal: AbortSignal.timeout(3_000) });
    const text = await res.text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name}\\{[^}]*operation="ShardController"[^}]*\\} (\\d+)`, 'm'))?.[1] ?? 0);
    return value('sharditem_created_count') - value('sharditem_removed_count');
  } catch {
    return null;
  }
}

async function split(history: TemporalHost[]): Promise<string> {
  const held = await Promise.all(history.map(shardsHeld));
  return history.map((h, i) => `${h.name} ${held[i] ?? 'down'}`).join(', ');
}

export function clusterFaults(cluster: TemporalCluster, stats: Stats, figures: LoadFigures) {
  const history = cluster.hosts.filter((h) => h.role === 'history');
  const byName = (name: string) => cluster.hosts.find((h) => h.name === name)!;
  const killed: TemporalHost[] = [];

  /** The 503s and retries the load met between `start` and now. */
  const meter = () => {
    const s503 = stats.byStatus.get(503) ?? 0;
    const retries = [...stats.retries.values()].reduce((a, b) => a + b, 0);
    return () => `503s ${(stats.byStatus.get(503) ?? 0) - s503}, retries ${[...stats.retries.values()].reduce((a, b) => a + b, 0) - retries}`;
  };
  /** Ms from `t0` until `n` more pays have completed than had at the call. */
  const pays = async (t0: number, n = 1) => {
    const at = figures.payments;
    await until(`${n} pay(s) completing`, async () => figures.payments >= at + n, 180_000);
    return Date.now() - t0;
  };
  const holdsShards = (h: TemporalHost, n = 1) => until(`${h.name} holding shards`, async () => ((await shardsHeld(h)) ?? 0) >= n, 180_000, h.proc);

  const killHistory = async (): Promise<FaultResult> => {
    const before = await split(history);
    const held = await Promise.all(history.map(shardsHeld));
    const victim = held[0]! >= held[1]! ? history[0] : history[1];
    const survivor = history.find((h) => h !== victim)!;
    const m = meter();
    const t0 = Date.now();
    await victim.proc.kill('SIGKILL');
    killed.push(victim);
    await holdsShards(survivor, CLUSTER_SHARDS);
    const movedMs = Date.now() - t0;
    const firstPay = await pays(t0);
    const progressMs = await pays(t0, PAYS_AFTER_MOVE);
    return {
      downMs: 0,
      upMs: progressMs,
      note: [
        `shards before: ${before}; after: ${await split(history)} (sharditem created less removed)`,
        `${victim.name}'s shards all on ${survivor.name} ${s(movedMs)} after the kill; first pay completed ${s(firstPay)} after; ${PAYS_AFTER_MOVE} pays after the move ${s(progressMs)} after`,
        m(),
      ],
    };
  };

  const killOne = (name: string) => async (): Promise<FaultResult> => {
    const host = byName(name);
    const m = meter();
    const t0 = Date.now();
    await host.proc.kill('SIGKILL');
    killed.push(host);
    const firstPay = await pays(t0);
    const threePays = await pays(t0, 3);
    return { downMs: 0, upMs: threePays, note: [`first pay completed ${s(firstPay)} after the kill, three ${s(threePays)} after`, m()] };
  };

  const restartKilled = async (): Promise<FaultResult> => {
    const m = meter();
    const t0 = Date.now();
    for (const h of killed) h.start();
    await Promise.all(killed.map((h) => cluster.ready(h)));
    const readyMs = Date.now() - t0;
    for (const h of killed.filter((k) => k.role === 'history')) await holdsShards(h);
    const shardsMs = Date.now() - t0;
    // The ring settles over a few seconds after a join; the split is read once it has.
    await sleep(5_000);
    return { downMs: 0, upMs: readyMs, note: [`ready ${s(readyMs)} after the start; the history host holding shards again ${s(shardsMs)} after`, `shards after the restart: ${await split(history)}`, m()] };
  };

  /** Every host in turn: SIGTERM, exit, start, ready (a history host: holding shards again), one pay through. */
  const rollAll = async (): Promise<FaultResult> => {
    const m = meter();
    const lines: string[] = [];
    let down = 0;
    let up = 0;
    let clean = true;
    for (const h of cluster.hosts) {
      const t0 = Date.now();
      clean = (await h.proc.stop(30_000)) && clean;
      const downMs = Date.now() - t0;
      h.start();
      const t1 = Date.now();
      await cluster.ready(h);
      if (h.role === 'history') await holdsShards(h);
      const upMs = Date.now() - t1;
      const payMs = await pays(t1);
      down += downMs;
      up += upMs;
      lines.push(`${h.name}: down ${s(downMs)}, up ${s(upMs)}, a pay completed ${s(payMs)} after its start`);
    }
    lines.push(`shards after the roll: ${await split(history)}`, m());
    return { downMs: down, upMs: up, clean, note: lines };
  };

  return [
    { what: 'kill -9 a history host (its shards move)', run: killHistory },
    { what: 'kill -9 a matching host', run: killOne('temporal-matching-2') },
    { what: 'kill -9 a frontend', run: killOne('temporal-frontend-1') },
    { what: 'start the killed hosts again', run: restartKilled },
    { what: `roll every Temporal host (${cluster.hosts.length}, SIGTERM)`, run: rollAll },
  ];
}
