import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const item = (over: Record<string, unknown> = {}) => ({ name: 'Widget', price: 10, quantity: 1, ...over });
const body = (over: Record<string, unknown> = {}) => ({
  description: 'Order',
  customer: { email: 'buyer@example.com' },
  items: [item()],
  ...over,
});
const post = (payload: unknown) => stack.http.post('/api/checkout/sessions', payload, { key: biz.testKey });

async function expectInvalid(payload: unknown, path: (string | number)[], message: string, headline = 'Validation failed') {
  const res = await post(payload);
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.type).toBe('validation_error');
  expect(res.body.error.requestId).toMatch(/^req_/);
  expect(res.body.error.message).toBe(headline);
  expect(res.body.error.errors).toContainEqual({ path, message });
}

describe('POST /api/checkout/sessions validation (spec error table and limits)', () => {
  const PRICE = 'Price must be between 0.01 and 999999.99';

  it.each([0, 0.001, -1, 1_000_000, 999_999.991])('item price %p is out of range', async (price) => {
    const res = await post(body({ items: [item(), item({ price })] }));
    expect(res.status).toBe(400);
    expect(res.body.error.errors[0].path).toEqual(['items', 1, 'price']);
  });

  it('gives the spec message for a price out of range, at items.<index>.price', async () => {
    await expectInvalid(body({ items: [item(), item({ price: 0 })] }), ['items', 1, 'price'], PRICE, PRICE);
    await expectInvalid(body({ items: [item({ price: 1_000_000 })] }), ['items', 0, 'price'], PRICE, PRICE);
  });

  it('says a price of the wrong type is one, in its entry and the top-level message, with an example', async () => {
    const message = 'Price must be a number of dollars, such as 24.50';
    for (const price of ['24.50', null, true]) await expectInvalid(body({ items: [item(), item({ price })] }), ['items', 1, 'price'], message, message);
    const res = await post(body({ items: [item({ price: '24.50' })] }));
    expect(res.body.error.errors).toEqual([{ path: ['items', 0, 'price'], message }]);
  });

  it('says a quantity and askShipping of the wrong type are', async () => {
    await expectInvalid(body({ items: [item({ quantity: '2' })] }), ['items', 0, 'quantity'], 'Quantity must be an integer, such as 1', 'Quantity must be an integer, such as 1');
    await expectInvalid(body({ askShipping: 'yes' }), ['askShipping'], 'askShipping must be true or false', 'askShipping must be true or false');
  });

  it('accepts the price bounds 0.01 and 999999.99', async () => {
    const res = await post(body({ items: [item({ price: 0.01 }), item({ price: 999_999.99 })] }));
    expect(res.status).toBe(201);
    expect(res.body.data.items.map((i: any) => i.price)).toEqual([1, 99_999_999]);
  });

  it('rejects a price with more than two decimals rather than rounding it', async () => {
    await expectInvalid(body({ items: [item({ price: 10.005 })] }), ['items', 0, 'price'], 'Price must have at most 2 decimal places');
  });

  it('requires at least one item', async () => {
    const msg = 'At least one item is required';
    await expectInvalid(body({ items: [] }), ['items'], msg, msg);
    await expectInvalid({ description: 'x', customer: { email: 'a@b.co' } }, ['items'], msg, msg);
  });

  it('allows at most 100 items', async () => {
    expect((await post(body({ items: Array.from({ length: 100 }, () => item()) }))).status).toBe(201);
    await expectInvalid(body({ items: Array.from({ length: 101 }, () => item()) }), ['items'], 'At most 100 items are allowed');
  });

  it('checks item name, description, quantity and image URL limits', async () => {
    await expectInvalid(body({ items: [item({ name: '' })] }), ['items', 0, 'name'], 'Name must be 1-100 characters');
    await expectInvalid(body({ items: [item({ name: 'n'.repeat(101) })] }), ['items', 0, 'name'], 'Name must be 1-100 characters');
    await expectInvalid(body({ items: [item({ description: 'd'.repeat(257) })] }), ['items', 0, 'description'], 'Description must be at most 256 characters');
    await expectInvalid(body({ items: [item({ quantity: 0 })] }), ['items', 0, 'quantity'], 'Quantity must be between 1 and 1000000');
    await expectInvalid(body({ items: [item({ quantity: 1_000_001 })] }), ['items', 0, 'quantity'], 'Quantity must be between 1 and 1000000');
    await expectInvalid(body({ items: [item({ quantity: 1.5 })] }), ['items', 0, 'quantity'], 'Quantity must be an integer, such as 1', 'Quantity must be an integer, such as 1');
    await expectInvalid(body({ items: [item({ imageUrl: 'ftp://x.test/a.png' })] }), ['items', 0, 'imageUrl'], 'Must be an http or https URL');
    await expectInvalid(body({ items: [item({ imageUrl: `https://x.test/${'a'.repeat(250)}` })] }), ['items', 0, 'imageUrl'], 'Must be at most 256 characters');
    const ok = await post(body({ items: [item({ description: 'd'.repeat(256), quantity: 1_000_000, price: 0.01, imageUrl: null })] }));
    expect(ok.status).toBe(201);
  });

  it('checks the description, customer e-mail and redirect URLs', async () => {
    await expectInvalid(body({ description: '' }), ['description'], 'Description must be 1-256 characters');
    await expectInvalid(body({ description: 'd'.repeat(257) }), ['description'], 'Description must be 1-256 characters');
    await expectInvalid(body({ customer: { email: 'not-an-email' } }), ['customer', 'email'], 'Invalid email format');
    await expectInvalid(body({ urls: { success: `https://x.test/${'a'.repeat(250)}` } }), ['urls', 'success'], 'Must be at most 256 characters');
    await expectInvalid(body({ urls: { cancel: 'javascript:alert(1)' } }), ['urls', 'cancel'], 'Must be an http or https URL');
    const ok = await post(body({ askShipping: true, urls: { success: null, cancel: 'https://shop.test/c', failure: null } }));
    expect(ok.status).toBe(201);
    expect(ok.body.data.askShipping).toBe(true);
  });

  describe('metadata', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));

    it('accepts 50 entries in object form and 50 in array form', async () => {
      expect((await post(body({ metadata: fifty }))).status).toBe(201);
      const asArray = Object.entries(fifty).map(([key, value]) => ({ key, value }));
      const res = await post(body({ metadata: asArray }));
      expect(res.status).toBe(201);
      expect(res.body.data.metadata).toEqual(fifty);
    });

    it('rejects a 51st entry with the spec message at path metadata, in either form', async () => {
      const msg = 'Too many metadata fields (max 50)';
      await expectInvalid(body({ metadata: { ...fifty, extra: 'x' } }), ['metadata'], msg, msg);
      const asArray = [...Object.entries(fifty).map(([key, value]) => ({ key, value })), { key: 'extra', value: 1 }];
      await expectInvalid(body({ metadata: asArray }), ['metadata'], msg, msg);
    });

    it('checks keys (letters, digits, dash, underscore, max 64) and values (string ≤ 255, integer, boolean)', async () => {
      await expectInvalid(body({ metadata: { 'bad key': 'x' } }), ['metadata', 'bad key'], 'Metadata keys may contain only letters, digits, dash and underscore');
      await expectInvalid(body({ metadata: { ['k'.repeat(65)]: 'x' } }), ['metadata', 'k'.repeat(65)], 'Metadata keys must be 1-64 characters');
      await expectInvalid(body({ metadata: [{ key: 'a.b', value: 1 }] }), ['metadata', 0, 'key'], 'Metadata keys may contain only letters, digits, dash and underscore');
      await expectInvalid(body({ metadata: { a: 'v'.repeat(256) } }), ['metadata', 'a'], 'Metadata values must be at most 255 characters');
      await expectInvalid(body({ metadata: { a: 1.5 } }), ['metadata', 'a'], 'Metadata values must be a string, an integer or a boolean');
      await expectInvalid(body({ metadata: { a: { nested: true } } }), ['metadata', 'a'], 'Metadata values must be a string, an integer or a boolean');
      await expectInvalid(body({ metadata: 'text' }), ['metadata'], 'Metadata must be an object or an array of {key, value} entries');
      const ok = await post(body({ metadata: { 'Key_1-x': 'v'.repeat(255), n: -3, flag: false } }));
      expect(ok.status).toBe(201);
      expect(ok.body.data.metadata).toEqual({ 'Key_1-x': 'v'.repeat(255), n: -3, flag: false });
    });
  });

  it("rejects the overview's {amountInCents, currency} body, naming description, customer, items and the amount", async () => {
    const res = await post({ amountInCents: 5000, currency: 'USD' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Validation failed');
    expect(res.body.error.errors.map((e: any) => e.path)).toEqual([['description'], ['customer'], ['items'], ['amountInCents']]);
    expect(res.body.error.errors[3].message).toBe("Unknown field: amountInCents. A session's amount is its items' prices times their quantities, plus the fee: send items");
  });

  it('takes currency USD, and refuses any other rather than charge it in dollars', async () => {
    expect((await post(body({ currency: 'USD' }))).status).toBe(201);
    await expectInvalid(body({ currency: 'EUR' }), ['currency'], 'Currency must be USD: this service charges in US dollars only');
  });

  it('refuses a field it does not define, at any depth, by name', async () => {
    const res = await post(body({ items: [item({ sku: 'B-1' })], customer: { email: 'buyer@example.com', name: 'Ada' } }));
    expect([res.status, res.body.error.message, res.body.error.errors]).toEqual([
      400,
      'Validation failed',
      [
        { path: ['customer', 'name'], message: 'Unknown field: name' },
        { path: ['items', 0, 'sku'], message: 'Unknown field: sku' },
      ],
    ]);
  });

  it('caps a session subtotal at $999,999,999.99 so every amount stays exact', async () => {
    await expectInvalid(
      body({ items: [item({ price: 999_999.99, quantity: 1_000_000 })] }),
      ['items'],
      'Session subtotal must not exceed 999999999.99',
    );
  });
});
