import { STARTUP, startupTargets } from '../../bench/startup.js';

/** Seven starts' CPU figures of each process, as bench/startup.ts records them. */
const samples = (api: number[], worker: number[]) => ({ [STARTUP.apiCpu]: api, [STARTUP.workerCpu]: worker });
const verdicts = (targets: ReturnType<typeof startupTargets>) => targets.map((t) => ({ metric: t.metric, measured: t.measured, verdict: t.verdict, why: t.why }));

describe('(s) start-up targets: the budget on the median CPU of the starts', () => {
  it('meets the budget (API 2 s, worker 3 s) on the median, however slow the cold first start was', () => {
    const [api, worker] = startupTargets(samples([2_600, 1_450, 1_400, 1_440, 1_320, 1_400, 1_400], [3_400, 2_150, 2_220, 2_090, 2_130, 2_110, 2_270]), 7);
    expect(api).toMatchObject({ scenario: '(s)', measured: 1_400, target: '≤ 2000 ms', verdict: 'met', met: true, spread: { min: 1_320, max: 2_600 }, withinNoise: true });
    expect(worker).toMatchObject({ measured: 2_150, target: '≤ 3000 ms', verdict: 'met', met: true });
  });

  it('misses it when the median is over, and says by how much', () => {
    const [api, worker] = startupTargets(samples([2_780, 2_690, 2_540], [4_280, 4_030, 4_440]), 3);
    expect(verdicts([api, worker])).toEqual([
      { metric: 'API start-up CPU, median of 3 runs (ms)', measured: 2_690, verdict: 'missed', why: '2690 ms > 2000 ms' },
      { metric: 'worker start-up CPU, median of 3 runs (ms)', measured: 4_280, verdict: 'missed', why: '4280 ms > 3000 ms' },
    ]);
  });

  it('is not measured, never met, when a start never said it was ready or a run is missing', () => {
    const [api, worker] = startupTargets(samples([1_400, NaN, 1_300], [2_100, 2_000]), 3);
    expect(verdicts([api, worker])).toEqual([
      { metric: 'API start-up CPU, median of 3 runs (ms)', measured: null, verdict: 'not measured', why: '1 of 3 starts never said they were ready' },
      { metric: 'worker start-up CPU, median of 3 runs (ms)', measured: null, verdict: 'not measured', why: '1 of 3 starts never said they were ready' },
    ]);
    expect(startupTargets({}, 3).map((t) => t.verdict)).toEqual(['not measured', 'not measured']);
  });
});
