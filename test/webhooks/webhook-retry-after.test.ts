import { RETRY_AFTER_CAP_MS, retryAfterMs } from '../../src/modules/webhooks/retry-after.rules.js';
import { streakIsTooLong } from '../../src/modules/webhooks/auto-disable.service.js';

const now = new Date('2026-11-24T08:00:00.000Z');

describe('Retry-After', () => {
  it('reads seconds and HTTP dates on a 429 or 503', () => {
    expect(retryAfterMs(429, '120', now)).toBe(120_000);
    expect(retryAfterMs(503, ' 0 ', now)).toBe(0);
    expect(retryAfterMs(503, 'Tue, 24 Nov 2026 08:05:00 GMT', now)).toBe(5 * 60_000);
  });

  it('caps at 24 hours, and a date already past is now', () => {
    expect(retryAfterMs(429, String(3 * 24 * 3600), now)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs(429, 'Fri, 27 Nov 2026 08:00:00 GMT', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs(503, 'Mon, 23 Nov 2026 08:00:00 GMT', now)).toBe(0);
  });

  it('is ignored on other statuses, when absent, and when it is neither form', () => {
    expect(retryAfterMs(500, '120', now)).toBeNull();
    expect(retryAfterMs(200, '120', now)).toBeNull();
    expect(retryAfterMs(null, '120', now)).toBeNull();
    expect(retryAfterMs(429, undefined, now)).toBeNull();
    expect(retryAfterMs(429, '', now)).toBeNull();
    expect(retryAfterMs(429, '-5', now)).toBeNull();
    expect(retryAfterMs(429, '1.5', now)).toBeNull();
    expect(retryAfterMs(429, '2026-11-24T09:00:00Z', now)).toBeNull();
    expect(retryAfterMs(429, 'soon', now)).toBeNull();
  });
});

describe('the failure streak', () => {
  const day = 24 * 3600_000;
  it('is too long once it has lasted the whole window, not a moment before', () => {
    const since = new Date(now.getTime() - 5 * day);
    expect(streakIsTooLong(since, now, 5 * day)).toBe(true);
    expect(streakIsTooLong(new Date(since.getTime() + 1), now, 5 * day)).toBe(false);
  });
});
