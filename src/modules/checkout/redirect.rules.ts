/**
 * Where the customer goes after paying: the business's success or failure URL with `session_id`
 * appended (keeping any query string and fragment it already has), or null when the business gave no
 * URL and the hosted page shows its own receipt or failure page. Only a final outcome redirects.
 */
export function paymentRedirectUrl(
  session: { id: string; status: string; successUrl?: string | null; failureUrl?: string | null },
): string | null {
  const target = session.status === 'completed' ? session.successUrl : session.status === 'failed' ? session.failureUrl : null;
  return target ? withSessionId(target, session.id) : null;
}

/** Appends by hand: re-serialising through URLSearchParams would re-encode the business's own query. */
export function withSessionId(url: string, sessionId: string): string {
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}session_id=${encodeURIComponent(sessionId)}${fragment}`;
}
