/**
 * Runs a chaos schedule against the cluster: each fault at its second, the target brought down and, after
 * its drawn delay, up again. A fault whose target is still down or starting again is skipped and said so
 * (the schedule is the seed's; how long a start takes is the machine's). Each fault's window is kept for
 * the evidence of a breach.
 */
import type { FaultWindow } from './checks.js';
import type { ChaosCluster } from './cluster.js';
import { describeFault, TARGETS, type PlannedFault } from './schedule.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the schedule against the cluster; resolves once every fault it began has been healed. */
export function runSchedule(cluster: ChaosCluster, schedule: PlannedFault[], started: number, executed: string[], windows: FaultWindow[], log: (l: string) => void) {
  const busy = new Set<string>();
  const tasks: Promise<void>[] = [];
  const stamp = () => `+${((Date.now() - started) / 1000).toFixed(1)} s`;
  const timers = schedule.map((f) =>
    setTimeout(() => {
      if (busy.has(f.target) || cluster.isDown(f.target)) {
        executed.push(`${stamp()} skipped (${f.target} still starting again): ${describeFault(f)}`);
        return;
      }
      busy.add(f.target);
      tasks.push(
        (async () => {
          const line = `${stamp()} ${describeFault(f)}`;
          const window: FaultWindow = { from: Date.now() - started, to: null, text: describeFault(f) };
          windows.push(window);
          try {
            await cluster.down(f.target, f.kind);
            await sleep(f.downMs);
            await cluster.up(f.target);
            window.to = Date.now() - started;
            executed.push(`${line}: up again at ${stamp()}`);
          } catch (err) {
            executed.push(`${line}: FAILED ${(err as Error).message.split('\n')[0]}`);
          } finally {
            busy.delete(f.target);
            log(executed[executed.length - 1]);
          }
        })(),
      );
    }, f.at),
  );
  return {
    /** No more faults; waits for those under way, then starts whatever is still down. */
    async heal() {
      timers.forEach(clearTimeout);
      await Promise.all(tasks);
      for (const target of TARGETS) {
        if (!cluster.isDown(target)) continue;
        await cluster.up(target);
        executed.push(`${stamp()} heal: ${target} started again`);
      }
    },
  };
}
