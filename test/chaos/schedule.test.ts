import { createRng } from './prng.js';
import { drawSchedule, formatSchedule, TARGETS } from './schedule.js';

const draw = (seed: number, ms = 180_000) => drawSchedule(createRng(seed).fork('schedule'), ms);

describe('the chaos schedule', () => {
  it('is a function of the seed: the same seed draws the same schedule, another seed another', () => {
    expect(formatSchedule(draw(41))).toBe(formatSchedule(draw(41)));
    expect(formatSchedule(draw(41))).not.toBe(formatSchedule(draw(42)));
  });

  it('does not move when another stream of the same seed draws (the load cannot shift the faults)', () => {
    const rng = createRng(41);
    for (let i = 0; i < 100; i++) rng.fork('customer-0').next();
    expect(drawSchedule(rng.fork('schedule'), 180_000)).toEqual(draw(41));
  });

  it.each([1, 41, 20261128, 7, 99])('seed %i: a fault every few seconds, within the run, with both overlaps placed', (seed) => {
    const faults = draw(seed);
    expect(faults.length).toBeGreaterThanOrEqual(12);
    expect(faults.every((f, i) => f.at >= 0 && f.at < 180_000 && (i === 0 || f.at >= faults[i - 1].at))).toBe(true);
    expect(faults.every((f) => TARGETS.includes(f.target) && f.downMs > 0)).toBe(true);
    // A PostgreSQL fault inside a Temporal outage, and an API killed right after a worker's kill.
    const temporal = faults.find((f) => f.note?.startsWith('overlap: Temporal down'))!;
    const postgres = faults.find((f) => f.note?.startsWith('overlap: PostgreSQL'))!;
    expect(postgres.at).toBeGreaterThan(temporal.at);
    expect(postgres.at).toBeLessThan(temporal.at + temporal.downMs);
    const worker = faults.find((f) => f.note?.startsWith('overlap: worker'))!;
    const api = faults.find((f) => f.note?.startsWith('overlap: API'))!;
    expect(api.at).toBeGreaterThan(worker.at + worker.downMs);
    expect(api.at).toBeLessThan(worker.at + worker.downMs + 15_000);
  });

  it('draws whole numbers and picks within their bounds', () => {
    const rng = createRng(3);
    const ints = Array.from({ length: 1000 }, () => rng.int(2, 5));
    expect(new Set(ints)).toEqual(new Set([2, 3, 4, 5]));
  });
});
