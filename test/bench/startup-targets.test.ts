import { STARTUP, startupTargets } from '../../bench/startup.js';

/** Each start's CPU figures of each process, as bench/startup.ts records them, the first a cold one. */
const samples = (api: number[], worker: number[]) => ({ [STARTUP.apiCpu]: api, [STARTUP.workerCpu]: worker });
const verdicts = (targets: ReturnType<typeof startupTargets>) => targets.map((t) => ({ measured: t.measured, verdict: t.verdict, why: t.why }));

describe('(s) start-up targets: the budget on the median CPU of the restarts', () => {
  it('judges the starts after the first (a warm compile cache), the cold first one apart', () => {
    const [api, worker] = startupTargets(samples([2_600, 1_450, 1_400, 1_440, 1_320, 1_400, 1_400], [3_400, 2_150, 2_220, 2_090, 2_130, 2_110, 2_270]), 7);
    expect(api).toMatchObject({
      scenario: '(s)',
      metric: 'API start-up CPU, restarts: median of 6 starts after the first (ms)',
      measured: 1_400,
      target: '≤ 2000 ms',
      verdict: 'met',
      met: true,
      spread: { min: 1_320, max: 1_450 },
      withinNoise: false,
    });
    expect(worker).toMatchObject({ measured: 2_140, target: '≤ 3000 ms', verdict: 'met', met: true });
  });

  it('misses it when the median is over, says by how much, and marks restarts on both sides of it', () => {
    const [api, worker] = startupTargets(samples([3_100, 2_780, 2_690, 1_900], [5_000, 4_280, 4_030, 4_440]), 4);
    expect(verdicts([api, worker])).toEqual([
      { measured: 2_690, verdict: 'missed', why: '2690 ms > 2000 ms' },
      { measured: 4_280, verdict: 'missed', why: '4280 ms > 3000 ms' },
    ]);
    expect(api.withinNoise).toBe(true);
  });

  it('is not measured, never met, when a start never said it was ready, a run is missing, only the cold start ran, or the profiler ran', () => {
    expect(verdicts(startupTargets(samples([1_400, NaN, 1_300], [2_100, 2_000]), 3))).toEqual([
      { measured: null, verdict: 'not measured', why: '1 of 3 starts never said they were ready' },
      { measured: null, verdict: 'not measured', why: '1 of 3 starts never said they were ready' },
    ]);
    expect(startupTargets({}, 3).map((t) => t.verdict)).toEqual(['not measured', 'not measured']);
    expect(startupTargets(samples([1_400], [2_100]), 1).map((t) => t.verdict)).toEqual(['not measured', 'not measured']);
    const profiled = startupTargets(samples([2_000, 1_400, 1_300], [2_500, 2_100, 2_000]), 3, 'profiled');
    expect(verdicts(profiled)).toEqual([
      { measured: null, verdict: 'not measured', why: 'profiled' },
      { measured: null, verdict: 'not measured', why: 'profiled' },
    ]);
  });
});
