import fc from 'fast-check';
import {
  canonicalJson,
  isValidIdempotencyKey,
  operationPath,
  requestFingerprint,
  requestOperation,
} from '../../src/modules/idempotency/request-fingerprint.rules.js';

const shuffleKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(shuffleKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, shuffleKeys(v)]));
  }
  return value;
};

describe('Idempotency-Key format (1 to 255 printable characters)', () => {
  it.each([
    ['accepts one character', 'a', true],
    ['accepts 255 characters', 'k'.repeat(255), true],
    ['accepts spaces and punctuation', 'order 42 / retry ~', true],
    ['refuses an empty key', '', false],
    ['refuses 256 characters', 'k'.repeat(256), false],
    ['refuses a control character', 'tab\there', false],
    ['refuses a non-ASCII letter', 'naïve', false],
  ])('%s', (_name, key, valid) => {
    expect(isValidIdempotencyKey(key)).toBe(valid);
  });
});

describe('request fingerprint', () => {
  it('is the same for a body spelled with its keys in another order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(shuffleKeys(value))).toBe(canonicalJson(value));
      }),
    );
  });

  it('round-trips: the canonical form parses back to an equal value', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))));
  });

  it('differs when the method, the operation or the body differs', () => {
    const base = requestFingerprint(requestOperation('POST', '/api/refunds'), { checkoutSessionId: 'a' });
    expect(requestFingerprint(requestOperation('PUT', '/api/refunds'), { checkoutSessionId: 'a' })).not.toBe(base);
    expect(requestFingerprint(requestOperation('POST', '/api/withdrawals'), { checkoutSessionId: 'a' })).not.toBe(base);
    expect(requestFingerprint(requestOperation('POST', '/api/refunds'), { checkoutSessionId: 'b' })).not.toBe(base);
  });

  it('reads /api/v1/... as the same operation as /api/...', () => {
    expect(operationPath('/api/v1/withdrawals/wd_1/cancel')).toBe('/api/withdrawals/wd_1/cancel');
    expect(operationPath('/api/v1')).toBe('/api');
    expect(operationPath('/api/v10/x')).toBe('/api/v10/x');
    expect(requestFingerprint(requestOperation('POST', '/api/v1/refunds'), {})).toBe(requestFingerprint(requestOperation('post', '/api/refunds/'), {}));
  });
});
