import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyMode } from './api-key.entity.js';

const KEY_PATTERN = /^mp_(live|test)_[A-Za-z0-9]{32}$/;

/** A new key: the secret (shown once), its SHA-256 (stored) and a short visible prefix (stored). */
export function generateApiKey(mode: ApiKeyMode): { secret: string; hash: string; prefix: string } {
  // Only letters and digits, so the key selects with a double-click: base64url without '-' and '_',
  // drawn until 32 characters (about 190 bits) remain.
  let body = '';
  while (body.length < 32) body += randomBytes(32).toString('base64url').replace(/[-_]/g, '');
  body = body.slice(0, 32);
  const secret = `mp_${mode}_${body}`;
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, 12) };
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The mode a presented key claims, or null when it is not shaped like one of ours. */
export function keyMode(secret: string): ApiKeyMode | null {
  const match = KEY_PATTERN.exec(secret);
  return match ? (match[1] as ApiKeyMode) : null;
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
