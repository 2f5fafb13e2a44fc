/**
 * CPU time by process group on this machine, read from /proc: what an operation costs the API, the
 * worker(s), Temporal, PostgreSQL and the benchmark itself (load generator, F4's own worker). On two
 * shared cores a throughput is bounded by the sum, so the split says which process bounds it.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type CpuGroups = Record<'api' | 'worker' | 'temporal' | 'postgres' | 'bench', number>;

/** A process's CPU ticks; with `children`, also those of children it has reaped (PostgreSQL's exited backends). */
function ticks(pid: number, children = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  } catch {
    return 0; // exited: its time is lost, which a per-operation figure over many operations absorbs
  }
}

/** One process's own CPU time so far, user and system (ms; ticks of 10 ms). */
export const processCpuMs = (pid: number): number => ticks(pid) * 10;

/** Each process's parent, from /proc: the processes this run started are those descended from it. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch {
      // exited while listed
    }
  }
  return parentOf;
}

/**
 * CPU milliseconds used so far by each group; the API's and workers' processes are given by pid. Only
 * this run's own processes count (those descended from this one: its PostgreSQLs, its Temporal), not
 * another run's on a shared machine, whose servers carry the same command lines.
 */
export function cpuByGroup(pids: { api?: number; workers: (number | undefined)[] }): CpuGroups {
  const realServer = process.env.TEMPORAL_SERVER_PATH;
  const groups: CpuGroups = { api: 0, worker: 0, temporal: 0, postgres: 0, bench: ticks(process.pid) };
  const workers = new Set(pids.workers.filter((p): p is number => p !== undefined));
  const parentOf = parents();
  const ours = (pid: number) => {
    for (let p = parentOf.get(pid), hops = 0; p !== undefined && p > 1 && hops < 16; p = parentOf.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  for (const pid of parentOf.keys()) {
    if (pid === pids.api) groups.api += ticks(pid);
    else if (workers.has(pid)) groups.worker += ticks(pid);
    else if (ours(pid)) {
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      // The dev server (`temporal server start-dev`) or the real one (the binary BENCH_TEMPORAL=real runs).
      if (cmd.includes('start-dev') || (realServer && cmd.startsWith(realServer))) groups.temporal += ticks(pid);
      // Backends retitle themselves `postgres: …`; the postmaster (the binary's path) holds its reaped backends' time.
      else if (cmd.startsWith('postgres') || cmd.includes('/bin/postgres')) groups.postgres += ticks(pid, true);
    }
  }
  for (const k of Object.keys(groups) as (keyof CpuGroups)[]) groups[k] *= 10; // ticks of 10 ms
  return groups;
}

/** Each group's CPU per operation between two readings, and their sum (ms). */
export function perOperation(before: CpuGroups, after: CpuGroups, operations: number): CpuGroups & { all: number } {
  const n = Math.max(1, operations);
  const each = Object.fromEntries(
    (Object.keys(before) as (keyof CpuGroups)[]).map((k) => [k, Math.round(((after[k] - before[k]) / n) * 100) / 100]),
  ) as CpuGroups;
  return { ...each, all: Math.round(Object.values(each).reduce((s, v) => s + v, 0) * 100) / 100 };
}
