import { describe, expect, it } from '@jest/globals';
import { email } from '../../src/domain/validation.js';

describe('the e-mail rule', () => {
  const ok = (address: string) => email().safeParse(address).success;

  it('takes an ordinary address', () => {
    expect(ok('ada.lovelace+orders@example.com')).toBe(true);
  });

  it('takes 64 characters before the @ and refuses 65 (RFC 5321; found by npm run fuzz)', () => {
    expect(ok(`${'a'.repeat(64)}@example.com`)).toBe(true);
    expect(ok(`${'a'.repeat(65)}@example.com`)).toBe(false);
  });

  it('refuses an address over 254 characters', () => {
    const labels = (size: number) => ['d', 'e', 'f', 'g'].map((c) => c.repeat(size)).join('.');
    expect(`a@${labels(60)}.com`).toHaveLength(249);
    expect(ok(`a@${labels(60)}.com`)).toBe(true);
    expect(`a@${labels(62)}.com`).toHaveLength(257);
    expect(ok(`a@${labels(62)}.com`)).toBe(false);
  });
});
