import { describe, expect, it } from '@jest/globals';
import { eventually, EventuallyTimeout } from '../support/payments.js';

/** The integration tests' polling helper: a wait that runs out fails the test, naming what it waited for. */
describe('eventually', () => {
  it('returns the first truthy value', async () => {
    let n = 0;
    expect(await eventually('the third read', async () => ++n >= 3 && n)).toBe(3);
  });

  it('throws on timeout, naming what it waited for and the last value, rather than returning it', async () => {
    const waited = eventually('the session to be completed', async () => false, 250);
    await expect(waited).rejects.toThrow(EventuallyTimeout);
    await expect(waited).rejects.toThrow('Timed out after 250 ms waiting for the session to be completed (last value: false)');
  });

  it('still takes the older form without a description, and names the check by its source', async () => {
    // The source as the transpiler left it: `() => 0` or `()=>0`.
    await expect(eventually(() => 0, 150)).rejects.toThrow(/^Timed out after 150 ms waiting for \(\) ?=> ?0 \(last value: 0\)$/);
  });
});
