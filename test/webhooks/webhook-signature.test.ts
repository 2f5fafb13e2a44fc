import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { signatureHeader, signPayload } from '../../src/modules/webhooks/signature.crypto.js';

// Vectors computed outside this code base, with
//   printf '%s' "$t.$body" | openssl dgst -sha256 -hmac "$secret"
const SECRET = 'whsec_5f1d3c0a9e8b7d6c5b4a39281706f5e4';
const PREVIOUS = 'whsec_previous';
const T = 1700000000;
const BODY = '{"id":"evt_test","eventType":"checkout.succeeded","payload":{"amount":1234}}';
const OPENSSL_HEX = '8a74ec6967f31476bff29a39c8e07fcf185762e7aa8b600e1a28976559a4c454';
const OPENSSL_HEX_PREVIOUS = '57910acbd2b45195e051375c6e4624a4d1f917e5706d0b21067ed5fc3bf98146';

/** The receiver side as a merchant would write it from the spec alone. */
const independentHex = (secret: string, t: number, body: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('webhook signature', () => {
  it('matches the openssl vector for a fixed secret, timestamp and body', () => {
    expect(signPayload(SECRET, T, BODY)).toBe(OPENSSL_HEX);
    expect(independentHex(SECRET, T, BODY)).toBe(OPENSSL_HEX);
  });

  it('writes the header as t=<unix>,v1=<lowercase hex> with no spaces', () => {
    expect(signatureHeader([SECRET], T, BODY)).toBe(`t=${T},v1=${OPENSSL_HEX}`);
  });

  it('carries one v1 per secret during a rotation, newest first', () => {
    expect(signatureHeader([SECRET, PREVIOUS], T, BODY)).toBe(`t=${T},v1=${OPENSSL_HEX},v1=${OPENSSL_HEX_PREVIOUS}`);
  });

  it('signs any body and timestamp exactly as the spec describes', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 31 }), fc.string({ minLength: 1 }), (body, t, secret) => {
        expect(signPayload(secret, t, body)).toBe(independentHex(secret, t, body));
      }),
    );
  });
});

// The receiver's side (constructEvent: tolerance, rotation, malformed headers, Stripe both ways) is
// tested with its package, @payments/webhooks: test/kit/webhooks-package.test.ts.
