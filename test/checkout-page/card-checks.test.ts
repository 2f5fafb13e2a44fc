import fc from 'fast-check';
import {
  checkPayment,
  cvcValid,
  expiryInFuture,
  luhnValid,
  parseExpiry,
} from '../../src/modules/checkout-page/assets/card-checks.js';

/** Appends the Luhn check digit to a payload of digits. */
function withCheckDigit(payload: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

describe('luhnValid', () => {
  it.each(['4242424242424242', '4242 4242 4242 4242', '4000-0000-0000-0002', '4000000000009995', '378282246310005'])(
    'accepts the valid number %s',
    (number) => expect(luhnValid(number)).toBe(true),
  );

  it.each(['4242424242424241', '1234567812345678', '', 'abcd', '42424242424', '4'.repeat(20)])('rejects %p', (number) =>
    expect(luhnValid(number)).toBe(false),
  );

  it('accepts exactly one check digit for any 11-18 digit payload', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{11,18}$/), (payload) => {
        const valid = [...'0123456789'].filter((d) => luhnValid(payload + d));
        expect(valid).toHaveLength(1);
      }),
    );
  });

  it('catches every single-digit typo', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{15}$/), fc.nat(15), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
        const number = withCheckDigit(payload);
        const typo = number.slice(0, at) + ((Number(number[at]) + delta) % 10) + number.slice(at + 1);
        expect(luhnValid(typo)).toBe(false);
      }),
    );
  });
});

describe('expiry', () => {
  it.each([
    ['12/30', { month: 12, year: 2030 }],
    ['01 / 2031', { month: 1, year: 2031 }],
    ['0129', { month: 1, year: 2029 }],
    ['7/29', { month: 7, year: 2029 }],
  ])('reads %p', (text, expected) => expect(parseExpiry(text)).toEqual(expected));

  it.each(['13/30', '00/30', '12/3', '1230x', ''])('refuses %p', (text) => expect(parseExpiry(text)).toBeNull());

  const now = new Date(2026, 10, 21); // November 2026
  it('holds a card good through the end of its expiry month', () => {
    expect(expiryInFuture({ month: 11, year: 2026 }, now)).toBe(true);
    expect(expiryInFuture({ month: 10, year: 2026 }, now)).toBe(false);
    expect(expiryInFuture({ month: 1, year: 2027 }, now)).toBe(true);
    expect(expiryInFuture({ month: 12, year: 2025 }, now)).toBe(false);
  });
});

describe('cvcValid', () => {
  it.each([['123', true], ['1234', true], ['12', false], ['12345', false], ['12a', false]])('%p → %p', (cvc, ok) =>
    expect(cvcValid(cvc)).toBe(ok),
  );
});

describe('checkPayment', () => {
  const now = new Date(2026, 10, 21);
  const good = { email: 'buyer@example.com', number: '4242 4242 4242 4242', expiry: '12 / 30', cvc: '123', name: 'Ada Buyer' };
  const address = { addressLine1: '1 Main St', addressLine2: '', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

  it('passes a complete form', () => {
    expect(checkPayment(good, { askShipping: false }, now)).toEqual([]);
    expect(checkPayment({ ...good, ...address }, { askShipping: true }, now)).toEqual([]);
  });

  it('names every problem, in the form order', () => {
    const problems = checkPayment({ ...good, email: 'nope', number: '4242424242424241', expiry: '10/26', cvc: '1', name: ' ' }, { askShipping: false }, now);
    expect(problems).toEqual([
      { field: 'email', message: 'Enter a valid email address, like name@example.com.' },
      { field: 'number', message: 'Your card number is invalid.' },
      { field: 'expiry', message: 'Your card has expired.' },
      { field: 'cvc', message: 'The security code is 3 or 4 digits.' },
      { field: 'name', message: 'Enter the name on the card.' },
    ]);
  });

  it('asks for the shipping address only when the session collects it', () => {
    expect(checkPayment(good, { askShipping: false }, now)).toEqual([]);
    const fields = checkPayment(good, { askShipping: true }, now).map((p) => p.field);
    expect(fields).toEqual(['addressLine1', 'city', 'state', 'postalCode', 'country']);
  });
});
