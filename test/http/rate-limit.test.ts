import { randomUUID } from 'node:crypto';
import { createRateLimiter } from '../../src/http/rate-limit.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });

describe('rate limiter on PostgreSQL', () => {
  it('allows `points` calls per window, then refuses with the seconds until the window resets', async () => {
    const limiter = createRateLimiter(stack.orm, { name: `test-${randomUUID()}`, points: 3, durationSeconds: 60 });
    // The window opens at the first call, somewhere between these two instants.
    const before = Date.now();
    const states = [await limiter.consume('k1')];
    const after = Date.now();
    for (let i = 1; i < 4; i++) states.push(await limiter.consume('k1'));
    expect(states.map((s) => [s.allowed, s.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(states.every((s) => s.limit === 3)).toBe(true);
    // What is left of the 60 s window when the fourth call was refused: less by however long the calls took.
    const spent = Math.ceil((Date.now() - before) / 1000);
    expect(states[3].retryAfter).toBeGreaterThanOrEqual(59 - spent);
    expect(states[3].retryAfter).toBeLessThanOrEqual(60);
    // 60 s after the window opened, in whole seconds (one second either way for rounding).
    expect(states[0].resetAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 59);
    expect(states[0].resetAt).toBeLessThanOrEqual(Math.ceil(after / 1000) + 61);
  });

  it('counts each key and each limit apart', async () => {
    const name = `test-${randomUUID()}`;
    const a = createRateLimiter(stack.orm, { name, points: 1, durationSeconds: 60 });
    const other = createRateLimiter(stack.orm, { name: `${name}-other`, points: 1, durationSeconds: 60 });
    expect((await a.consume('k1')).allowed).toBe(true);
    expect((await a.consume('k1')).allowed).toBe(false);
    expect((await a.consume('k2')).allowed).toBe(true);
    expect((await other.consume('k1')).allowed).toBe(true);
  });

  it('shares one budget between limiters of the same name (several API instances)', async () => {
    const rule = { name: `test-${randomUUID()}`, points: 2, durationSeconds: 60 };
    const first = createRateLimiter(stack.orm, rule);
    const second = createRateLimiter(stack.orm, rule);
    const results = await Promise.all([first.consume('k'), second.consume('k'), first.consume('k'), second.consume('k')]);
    expect(results.filter((r) => r.allowed)).toHaveLength(2);
  });
});
