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

/** What "the same request" means for a key: method, operation path and body. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${operationPath(path)}\n${canonicalJson(body ?? {})}`)
    .digest('hex');
}
