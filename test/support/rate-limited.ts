/** The spec's 429, asserted in one place: the envelope, its message and `retryAfter`, and the `Retry-After` header. */
export function expectRateLimited(res: { status: number; body: any; headers: Record<string, unknown> }): number {
  expect(res.status).toBe(429);
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(res.body).toEqual({
    success: false,
    error: {
      type: 'rate_limit_exceeded',
      message: `Rate limit exceeded. Please retry after ${seconds} seconds.`,
      requestId: expect.stringMatching(/^req_[0-9a-f]{32}$/),
      retryAfter: seconds,
    },
  });
  return seconds;
}
