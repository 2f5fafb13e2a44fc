import { dependencyWait, reasonOf, StartupTimeout } from '../../src/main/dependency-wait.js';
import { recordingLog } from '../support/recording-log.js';

/** An attempt that fails `times` times with `err`, then answers `value`. */
function failing<T>(times: number, err: Error, value: T) {
  let calls = 0;
  const attempt = async () => {
    calls++;
    if (calls <= times) throw err;
    return value;
  };
  return { attempt, calls: () => calls };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('a starting process waits for a dependency', () => {
  it('tries again with backoff, doubling from the first delay to the cap, one warning per failed try, and answers what the attempt answers', async () => {
    const { log, records } = recordingLog();
    const seen: (string | null)[] = [];
    const wait = dependencyWait({ log, timeoutMs: null, firstDelayMs: 5, maxDelayMs: 20, onWait: (what) => seen.push(what) });
    const dependency = failing(5, refused(), 'connected');
    await expect(wait('PostgreSQL at db:5432', dependency.attempt)).resolves.toBe('connected');
    expect(dependency.calls()).toBe(6);
    const warnings = records.filter((r) => r.level === 40);
    expect(warnings.map((r) => r.retryInMs)).toEqual([5, 10, 20, 20, 20]);
    expect(warnings.map((r) => r.try)).toEqual([1, 2, 3, 4, 5]);
    for (const r of warnings) {
      expect(r).toMatchObject({ waitingFor: 'PostgreSQL at db:5432', reason: 'connect ECONNREFUSED 127.0.0.1:5432' });
      expect(r.msg).toMatch(/^waiting for PostgreSQL at db:5432: connect ECONNREFUSED 127\.0\.0\.1:5432; trying again in 0(\.0)? s$/);
      expect(JSON.stringify(r)).not.toContain('stack');
    }
    // Once it answered: one line saying so, and the admin port told it waits for nothing now.
    expect(records.at(-1)).toMatchObject({ level: 30, waitingFor: 'PostgreSQL at db:5432', tries: 6 });
    expect(seen.at(-1)).toBeNull();
    expect(seen.slice(0, -1).every((w) => w === 'PostgreSQL at db:5432')).toBe(true);
  });

  it('says nothing when the first try answers', async () => {
    const { log, records } = recordingLog();
    await dependencyWait({ log, timeoutMs: 1_000 })('Temporal at t:7233', async () => 1);
    expect(records).toEqual([]);
  });

  it('gives up at the deadline with what it waited for and the last reason (STARTUP_TIMEOUT), the last try on the deadline itself', async () => {
    const { log, records } = recordingLog();
    const wait = dependencyWait({ log, timeoutMs: 120, firstDelayMs: 50, maxDelayMs: 50 });
    const dependency = failing(Infinity, refused(), 'never');
    const started = Date.now();
    const err = await wait('PostgreSQL at db:5432', dependency.attempt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupTimeout);
    expect((err as Error).message).toMatch(/^gave up waiting for PostgreSQL at db:5432 after [\d.]+ s \(STARTUP_TIMEOUT\): connect ECONNREFUSED 127\.0\.0\.1:5432$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    // Tries at about 0, 50, 100 and 120 ms: no delay runs past the deadline, the last is cut to it.
    expect(dependency.calls()).toBeGreaterThanOrEqual(3);
    expect(records).toHaveLength(dependency.calls() - 1);
    const delays = records.map((r) => r.retryInMs as number);
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(120);
  });

  it('shares one deadline between the dependencies of a start', async () => {
    const { log } = recordingLog();
    const wait = dependencyWait({ log, timeoutMs: 60, firstDelayMs: 10, maxDelayMs: 10 });
    await wait('PostgreSQL', failing(3, refused(), 1).attempt);
    await expect(wait('Temporal', failing(Infinity, new Error('down'), 1).attempt)).rejects.toThrow(/^gave up waiting for Temporal after/);
  });
});

describe('the reason a try gives, on one line', () => {
  it.each([
    ['a message', new Error('connect ECONNREFUSED 127.0.0.1:5432'), 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['its first line only', new Error('password authentication failed for user "payments"\n  at Parser.parse (x.js:1:1)'), 'password authentication failed for user "payments"'],
    [
      "Node's AggregateError with no message (localhost: ::1 and 127.0.0.1), by its first error",
      Object.assign(new AggregateError([new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')], ''), { code: 'ECONNREFUSED' }),
      'connect ECONNREFUSED ::1:5432',
    ],
    ['an error with a code and no message, by its code', Object.assign(new Error(''), { code: 'ECONNRESET' }), 'ECONNRESET'],
    ['with its cause', new Error('Failed to connect to Temporal server', { cause: new Error('14 UNAVAILABLE: No connection established') }), 'Failed to connect to Temporal server: 14 UNAVAILABLE: No connection established'],
    ['not an Error', 'down', 'down'],
  ])('%s', (_name, err, reason) => {
    expect(reasonOf(err)).toBe(reason);
  });
});
