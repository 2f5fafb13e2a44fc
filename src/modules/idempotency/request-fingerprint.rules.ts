import { createHash } from 'node:crypto';

/** 1 to 255 printable ASCII characters (space through tilde), as the spec's Limits allow. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export const isValidIdempotencyKey = (key: string): boolean => IDEMPOTENCY_KEY_PATTERN.test(key);

/**
 * `/api/v1/...` is the same operation as `/api/...` (identical behaviour), so a client that retries on
 * the versioned path after trying the unversioned one is repeating the request, not changing it.
 */
export function operationPath(path: string): string {
  return path.replace(/^\/api\/v1(?=\/|$)/, '/api').replace(/\/+$/, '') || '/';
}

/** JSON with object keys sorted at every depth: the same body spelled in another key order is the same body. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The operation a request names, as a key records it: its method and operation path (`POST /api/refunds`). */
export function requestOperation(method: string, path: string): string {
  return `${method.toUpperCase()} ${operationPath(path)}`;
}

/** What "the same request" means for a key: its operation (`requestOperation`) and body. */
export function requestFingerprint(operation: string, body: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(body ?? {})}`)
    .digest('hex');
}
