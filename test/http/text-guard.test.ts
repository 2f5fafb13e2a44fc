import { describe, expect, it } from '@jest/globals';
import { useBusiness, useStack } from '../support/use-stack.js';

/** Found by `npm run fuzz`: text PostgreSQL cannot store came back as 500 or 503. */
const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const session = { description: 'Order', customer: { email: 'ada@example.com' }, items: [{ name: 'Mug', price: 12, quantity: 1 }] };
const MESSAGE = 'Must not contain NUL characters or unpaired surrogates';

describe('text the database cannot store', () => {
  it.each([
    ['a NUL in a text field', { ...session, description: 'Or\u0000der' }, ['description']],
    ['a NUL in an item', { ...session, items: [{ name: 'Mu\u0000g', price: 12, quantity: 1 }] }, ['items', 0, 'name']],
    ['a NUL in a URL', { ...session, urls: { success: 'https://shop.example.com/\u0000' } }, ['urls', 'success']],
    ['a NUL in a metadata value', { ...session, metadata: { orderId: 'A\u0000' } }, ['metadata', 'orderId']],
    ['an unpaired surrogate in a metadata value', { ...session, metadata: { orderId: 'A\udabc' } }, ['metadata', 'orderId']],
    ['an unpaired surrogate in a refund reason', null, ['reason']],
  ])('in the body (%s) is 400 validation_error naming the field', async (_case, body, path) => {
    const res = body
      ? await stack.http.post('/api/checkout/sessions', body, { key: biz.testKey })
      : await stack.http.post('/api/refunds', { checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', reason: 'Returned \ud83d' }, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Validation failed', errors: [{ path, message: MESSAGE }] });
  });

  it('is refused in any module, before the module reads it', async () => {
    const res = await stack.http.put('/api/webhooks/wh_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e', { description: '\u0000' }, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.errors).toEqual([{ path: ['description'], message: MESSAGE }]);
  });

  it('in a field the operation does not define is refused with the field, by name', async () => {
    const res = await stack.http.post('/api/checkout/sessions', { ...session, note: 'x\u0000', ['k\u0000']: 1 }, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.errors).toEqual([
      { path: ['note'], message: 'Unknown field: note' },
      { path: ['k\u0000'], message: 'Unknown field: k\u0000' },
    ]);
  });

  it('in the query is 400 validation_error naming the parameter', async () => {
    const res = await stack.http.get('/api/checkout/sessions?search=a%00', { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.errors).toEqual([{ path: ['search'], message: MESSAGE }]);
  });

  it.each([
    ['GET', '/api/refunds/ref_%00'],
    ['GET', '/api/withdrawals/wd_%00'],
    ['GET', '/api/webhooks/wh_%00'],
    ['GET', '/api/reserves/res_%00'],
    ['POST', '/api/webhooks/retry/whd_%00'],
    ['POST', '/api/withdrawals/wd_%00/cancel'],
    ['POST', '/api/checkout/%00/pay'],
  ])('in an id (%s %s) is 404, as for any id that cannot exist', async (method, path) => {
    const res = await stack.http.request(method, path, { key: biz.testKey });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Resource not found' });
  });

  it('keeps paired surrogates (emoji) as they are', async () => {
    const res = await stack.http.post('/api/checkout/sessions', { ...session, description: 'Coffee ☕ and 🍩' }, { key: biz.testKey });
    expect(res.status).toBe(201);
    expect(res.body.data.description).toBe('Coffee ☕ and 🍩');
  });
});
