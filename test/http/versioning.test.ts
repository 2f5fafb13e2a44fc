import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const body = { description: 'Order', customer: { email: 'buyer@example.com' }, items: [{ name: 'Widget', price: 12.5, quantity: 2 }] };

describe('/api/v1 serves every /api operation identically, with API-Version: v1', () => {
  it('creates a session at /api/v1/checkout/sessions that reads the same at both paths', async () => {
    const created = await stack.http.post('/api/v1/checkout/sessions', body, { key: biz.testKey });
    expect(created.status).toBe(201);
    expect(created.headers['api-version']).toBe('v1');
    const id = created.body.data.id;

    const unversioned = await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.testKey });
    const versioned = await stack.http.get(`/api/v1/checkout/sessions/${id}`, { key: biz.testKey });
    expect(versioned.status).toBe(200);
    expect(versioned.headers['api-version']).toBe('v1');
    expect(unversioned.headers['api-version']).toBe('v1');
    expect(versioned.body).toEqual(unversioned.body);
    expect(versioned.body.data).toEqual(created.body.data);
  });

  it('lists the same sessions at both paths', async () => {
    const query = '?limit=5&status=all';
    const versioned = await stack.http.get(`/api/v1/checkout/sessions${query}`, { key: biz.testKey });
    const unversioned = await stack.http.get(`/api/checkout/sessions${query}`, { key: biz.testKey });
    expect(versioned.status).toBe(200);
    expect(versioned.headers['api-version']).toBe('v1');
    expect(versioned.body).toEqual(unversioned.body);
  });

  it('answers errors the same way at both paths', async () => {
    for (const prefix of ['/api', '/api/v1']) {
      const invalid = await stack.http.post(`${prefix}/checkout/sessions`, { ...body, items: [] }, { key: biz.testKey });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error).toMatchObject({ type: 'validation_error', message: 'At least one item is required' });
      expect(invalid.headers['api-version']).toBe('v1');

      const unauthenticated = await stack.http.get(`${prefix}/checkout/sessions`);
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body.error.message).toBe('No API key: send Authorization: Bearer <key>');
      expect(unauthenticated.headers['api-version']).toBe('v1');

      const missing = await stack.http.get(`${prefix}/checkout/sessions/00000000-0000-7000-8000-000000000000`, { key: biz.testKey });
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toBe('Checkout session not found');
    }
  });
});
