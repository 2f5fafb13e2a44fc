import { runSoak, soakOptionsFromEnv, type SoakReport } from '../soak/soak.js';
import { formatSummary } from '../soak/summary.js';

/**
 * The short soak (docs/soak.md), the same code as `npm run soak`: about a minute of mixed traffic from
 * several businesses against two API processes and a worker, then a sweep of every route on each
 * process and the money checks. SOAK_SECONDS and the other settings apply here too.
 */
let report: SoakReport;

beforeAll(async () => {
  report = await runSoak(soakOptionsFromEnv(process.env, { seconds: 50, businesses: 3, concurrency: 1, maxRequests: 200_000 }));
  process.stdout.write(`${formatSummary(report)}\n`);
}, 600_000);

describe('a minute of mixed, concurrent and hostile traffic against two API processes and a worker', () => {
  it('drives real traffic for the whole run', () => {
    expect(report.trafficSeconds).toBeGreaterThanOrEqual(report.options.seconds - 1);
    expect(report.requests).toBeGreaterThan(500);
    for (const status of ['200', '201', '400', '404']) expect(report.histogram[status]).toBeGreaterThan(0);
  });

  it('never answers 5xx', () => {
    expect(report.serverErrors).toEqual([]);
    expect(report.serverErrorCount).toBe(0);
    expect(report.transportErrors).toBe(0);
  });

  it('gives every request the answer its rule calls for, as the API document describes it', () => {
    expect(report.unexpected).toEqual([]);
    expect(report.documentProblems).toEqual([]);
  });

  it('still answers every route correctly from each API process afterwards', () => {
    expect(report.sweepProblems).toEqual([]);
  });

  it('settles, and leaves each balance equal to its ledger and ledger verify clean', () => {
    expect(report.unsettled).toEqual([]);
    expect(report.balanceProblems).toEqual([]);
    expect(report.ledgerProblems).toEqual([]);
    expect(report.adminVerify).toEqual({ exitCode: 0, output: expect.stringContaining('Ledger verified') });
  });

  it('posts no webhook event twice to one endpoint, a receiver answering with a NUL byte included', () => {
    expect(report.duplicateDeliveries).toEqual([]);
  });
});
