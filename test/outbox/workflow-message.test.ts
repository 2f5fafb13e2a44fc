import { startDelayOf } from '../../src/modules/outbox/workflow-message.transport.js';

describe("startDelayOf: a stored start's first task at its `startAt`, measured when the relay sends it", () => {
  const now = Date.parse('2026-11-29T12:00:00.000Z');

  it('delays the first task by what is left until `startAt`', () => {
    expect(startDelayOf('2027-02-27T12:00:00.000Z', now)).toEqual({ startDelay: 90 * 24 * 3600 * 1000 });
    expect(startDelayOf('2026-11-29T12:00:01.500Z', now)).toEqual({ startDelay: 1_500 });
  });

  it('starts at once when no `startAt` is stored, or it has passed (a relay that sends the row late)', () => {
    expect(startDelayOf(undefined, now)).toEqual({});
    expect(startDelayOf('2026-11-29T12:00:00.000Z', now)).toEqual({});
    expect(startDelayOf('2026-11-29T11:00:00.000Z', now)).toEqual({});
  });
});
