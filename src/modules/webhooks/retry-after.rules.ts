/** A receiver may put off its next attempt by a day at most: longer would outlast the whole schedule. */
export const RETRY_AFTER_CAP_MS = 24 * 3600 * 1000;

/** The answers whose `Retry-After` is honoured: too many requests, and unavailable for now. */
const POSTPONING_STATUSES = new Set([429, 503]);

/**
 * How long a receiver asked to be left alone: `Retry-After` in seconds (`120`) or as an HTTP date
 * (`Wed, 25 Nov 2026 08:00:00 GMT`), on a 429 or 503 only, capped at 24 h; a date already past is 0.
 * Null when there is nothing to honour (another status, no header, or one that is neither form).
 */
export function retryAfterMs(statusCode: number | null, header: string | null | undefined, now: Date): number | null {
  if (statusCode === null || !POSTPONING_STATUSES.has(statusCode) || !header) return null;
  const value = header.trim();
  let ms: number;
  if (/^\d+$/.test(value)) {
    ms = Number(value) * 1000;
  } else {
    // An HTTP date names its weekday or month: a bare number or an ISO string is not one.
    const at = /[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}
