import { runChaos } from '../chaos/chaos.js';
import { CHECKS, chaosHeader, formatReport, type ChaosReport } from '../chaos/report.js';

/**
 * Two fixed seeds of the chaos run (docs/chaos.md): 3 minutes each of overlapping faults (APIs and workers
 * killed, Temporal killed and restarted on its file, PostgreSQL stopped in immediate mode or its
 * postmaster killed) under a load drawn from the same seed, then a bounded heal and the invariants. A
 * failure names its seed, the command that runs it again, and the schedule. Each seed takes about 6
 * minutes: setup, 3 of load, the heal, the checks.
 */
const SEEDS = [41, 20261128];
const MINUTES = 3;

describe.each(SEEDS)('chaos seed %i: overlapping faults under load, then a heal', (seed) => {
  let report: ChaosReport;

  beforeAll(async () => {
    report = await runChaos({ seed, minutes: MINUTES }, (line) => process.stderr.write(`chaos ${seed}: ${line}\n`));
    process.stdout.write(`${formatReport(report)}\n`);
  }, 9 * 60_000);

  it('drives real load and the faults it drew', () => {
    if (!report) throw new Error(`${chaosHeader({ seed, minutes: MINUTES })}\nthe run did not complete`);
    expect(report.counts.sessions).toBeGreaterThan(20);
    expect(report.executed.filter((l) => l.includes('up again')).length).toBeGreaterThan(5);
  });

  it('heals within its bound', () => {
    if (!report.healed) throw new Error(`${formatReport(report)}\n\nthe heal did not settle within its bound`);
  });

  it.each(CHECKS.map((c) => [c]))('holds: %s', (check) => {
    const found = report.problems[check];
    if (found.length) throw new Error(`${chaosHeader(report, report.schedule)}\n\n${check}: ${found.length} breaches:\n${found.slice(0, 30).map((p) => `  - ${p}`).join('\n')}`);
  });
});
