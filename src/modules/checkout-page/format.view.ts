/** Display helpers for the hosted page. Integer arithmetic only: cents never pass through a float. */

/** `123456` → `$1,234.56`. */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError('cents must be a safe integer');
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}

/** `Nov 21, 2026, 14:05 UTC`: one fixed zone, so the server-rendered page reads the same for everyone. */
export function formatDate(date: Date): string {
  return `${date.toLocaleString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })} UTC`;
}
