import { randomUUID } from 'node:crypto';
import { CARDS, createSession, pay, payToCompletion, payBody, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { expectRateLimited } from '../support/rate-limited.js';

const stack = useStack({}, { fabricatesState: true });
const biz = useBusiness(stack);

const error = (res: { body: any }) => res.body.error;

describe('POST /api/checkout/:id/pay: errors', () => {
  it('answers 404 for an unknown or malformed session id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await pay(stack, id);
      expect(res.status).toBe(404);
      expect(error(res)).toMatchObject({ type: 'not_found', message: 'Checkout session not found' });
      expect(error(res).requestId).toMatch(/^req_/);
    }
  });

  it.each(['completed', 'failed', 'cancelled', 'refunded'])('refuses a %s session with 400 naming the status', async (status) => {
    const session = await createSession(stack, biz.testKey);
    await sql(stack, 'update checkout_sessions set status = ? where id = ?', [status, session.id]);
    const res = await pay(stack, session.id);
    expect(res.status).toBe(400);
    expect(error(res)).toMatchObject({ type: 'validation_error', message: `Cannot pay a checkout session in ${status} status` });
    // A completed session without its payment would (rightly) fail `ledger verify` for other tests.
    await sql(stack, `update checkout_sessions set status = 'cancelled' where id = ?`, [session.id]);
  });

  it('refuses a second pay of a paid session without charging again', async () => {
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id);
    const again = await pay(stack, session.id);
    expect(again.status).toBe(400);
    expect(error(again).message).toBe('Cannot pay a checkout session in completed status');
    expect(await sql(stack, `select 1 from ledger_transactions where kind = 'payment' and reference_id = ?`, [session.id])).toHaveLength(1);
  });

  it('checks the session before the body: an unknown session is 404 and a paid one 400 naming its status, whatever the body', async () => {
    const unknown = await pay(stack, randomUUID(), { card: 'nope' });
    expect(unknown.status).toBe(404);
    expect(error(unknown).message).toBe('Checkout session not found');
    const session = await createSession(stack, biz.testKey);
    expect((await pay(stack, session.id)).status).toBe(200);
    const paid = await pay(stack, session.id, { card: 'nope' });
    expect(paid.status).toBe(400);
    expect(error(paid).message).toBe('Cannot pay a checkout session in completed status');
  });

  it('validates the body, naming each field', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, {
      card: { number: '4242', expMonth: 13, expYear: 2020, cvc: '12' },
      name: '',
      email: 'nope',
    });
    expect(res.status).toBe(400);
    expect(error(res).type).toBe('validation_error');
    expect(error(res).message).toBe('Validation failed');
    expect(error(res).errors).toEqual(
      expect.arrayContaining([
        { path: ['card', 'number'], message: 'Card number must be 12 to 19 digits' },
        { path: ['card', 'expMonth'], message: 'Expiry month must be 1-12' },
        { path: ['card', 'cvc'], message: 'CVC must be 3 or 4 digits' },
        { path: ['name'], message: 'Cardholder name is required' },
        { path: ['email'], message: 'Invalid email format' },
      ]),
    );
    expect((await pay(stack, session.id, {})).body.error.errors).toEqual(
      expect.arrayContaining([{ path: ['card'], message: 'Card is required' }]),
    );
  });

  it.each([
    ['a boolean month', { expMonth: true }, 'expMonth', 'Expiry month must be a whole number, such as 12'],
    ['a month in words', { expMonth: 'May' }, 'expMonth', 'Expiry month must be a whole number, such as 12'],
    ['a fractional month', { expMonth: 5.5 }, 'expMonth', 'Expiry month must be a whole number, such as 12'],
    ['a year as an object', { expYear: { year: 2030 } }, 'expYear', 'Expiry year must be a whole number, such as 2030'],
    ['a month out of range, as a number', { expMonth: 13 }, 'expMonth', 'Expiry month must be 1-12'],
    ['a month out of range, as digits', { expMonth: '13' }, 'expMonth', 'Expiry month must be 1-12'],
  ])('tells %s its type, or its range when the type is right', async (_case, card, field, message) => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, { ...payBody(), card: { ...payBody().card, ...card } });
    expect(res.status).toBe(400);
    expect(error(res).errors).toEqual([{ path: ['card', field], message }]);
  });

  it('refuses an expiry in the past and a number that fails Luhn, leaving the session payable', async () => {
    const session = await createSession(stack, biz.testKey);
    const expired = await pay(stack, session.id, { ...payBody(), card: { number: CARDS.success, expMonth: 1, expYear: 2020, cvc: '123' } });
    expect(error(expired).errors).toEqual([{ path: ['card', 'expYear'], message: 'Card has expired' }]);
    const luhn = await pay(stack, session.id, payBody('4242424242424241'));
    expect(luhn.status).toBe(400);
    expect(error(luhn)).toMatchObject({ type: 'validation_error', message: 'Validation failed', errors: [{ path: ['card', 'number'], message: 'Card number is invalid' }] });
    await payToCompletion(stack, session.id);
  });

  it('requires a shipping address when the session asks for one, with an ISO 3166 country', async () => {
    const session = await createSession(stack, biz.testKey, { askShipping: true });
    const missing = await pay(stack, session.id);
    expect(missing.status).toBe(400);
    expect(error(missing).errors).toEqual([{ path: ['shipping'], message: 'Shipping address is required' }]);
    const shipping = { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'XX' };
    const badCountry = await pay(stack, session.id, payBody(CARDS.success, { shipping }));
    expect(error(badCountry).errors).toEqual([{ path: ['shipping', 'country'], message: 'Country must be an ISO 3166-1 alpha-2 code' }]);
    const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]);
    expect(row.status).toBe('pending');
  });

  it('answers 405 to another method on the pay path', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await stack.http.get(`/api/checkout/${session.id}/pay`);
    expect(res.status).toBe(405);
    expect(error(res)).toMatchObject({ type: 'method_not_allowed', message: 'Method not allowed' });
  });

  it('limits a session to 10 pay calls a minute, with the spec 429 and headers', async () => {
    const session = await createSession(stack, biz.testKey);
    const started = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 10; i++) {
      const res = await pay(stack, session.id, {});
      expect(res.status).toBe(400);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(9 - i));
    }
    const limited = await pay(stack, session.id);
    expectRateLimited(limited);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(started + 59);
    // Another session has its own budget.
    const other = await createSession(stack, biz.testKey);
    expect((await pay(stack, other.id)).status).toBe(200);
  });
});
