import { WorkflowNotFoundError } from '@temporalio/client';

import { useBusiness, useStack } from '../support/use-stack.js';
import { checkoutWorkflowId, sessionExpiryWorkflowId } from '../../contracts/workflow-ids.js';

const validBody = () => ({
  description: 'Order #1001',
  customer: { email: 'buyer@example.com' },
  items: [
    { name: 'T-shirt', price: 19.99, quantity: 2, imageUrl: 'https://shop.example/tee.png' },
    { name: 'Cap', price: 5, quantity: 1, description: null },
  ],
  urls: { success: 'https://shop.example/ok', cancel: null },
  metadata: { orderId: 'A-1001', gift: true, units: 3 },
});

const stack = useStack();
const biz = useBusiness(stack);

const create = (body: unknown, key = biz.testKey) => stack.http.post('/api/checkout/sessions', body, { key });

describe('POST /api/checkout/sessions', () => {
  it('creates a pending session with totals in cents (2.9 % + $0.30)', async () => {
    const res = await create(validBody());
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const s = res.body.data;
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(s.status).toBe('pending');
    expect(s.currency).toBe('USD');
    // subtotal 2 × 1999 + 500 = 4498; fee round-half-up(4498 × 2.9 %) = 130, + 30
    expect(s.total).toBe(4498 + 160);
    expect(s.items.map((i: any) => [i.price, i.quantity, i.subtotal])).toEqual([
      [1999, 2, 3998],
      [500, 1, 500],
    ]);
    expect(s.items[0].sessionId).toBe(s.id);
    expect(s.items[1].description).toBeNull();
    expect(s.checkoutUrl).toBe(`${stack.origin}/checkout/${s.id}`);
    expect(s.metadata).toEqual({ orderId: 'A-1001', gift: true, units: 3 });
    expect(s.askShipping).toBe(false);
    expect(s.successUrl).toBe('https://shop.example/ok');
    expect(s.cancelUrl).toBeNull();
    expect(s.completedAt).toBeNull();
    expect(s.businessId).toBe(biz.id);
    expect(typeof s.userId).toBe('string');
    expect(new Date(s.createdAt).toISOString()).toBe(s.createdAt);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('stores exactly what it answers: a read gives the same session and items, in order', async () => {
    // The create answers from what it wrote in one statement, not from a read; the two must agree.
    const body = validBody();
    body.items.push({ name: 'Sticker', price: 0.5, quantity: 1000, imageUrl: 'https://shop.example/s.png' });
    const created = await create(body);
    expect(created.status).toBe(201);
    const read = await stack.http.get(`/api/checkout/sessions/${created.body.data.id}`, { key: biz.testKey });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    expect(read.body.data.items.map((i: any) => [i.name, i.imageUrl, i.subtotal])).toEqual([
      ['T-shirt', 'https://shop.example/tee.png', 3998],
      ['Cap', null, 500],
      ['Sticker', 'https://shop.example/s.png', 50_000],
    ]);
  });

  it('returns metadata given as an array of {key, value} as an object', async () => {
    const res = await create({ ...validBody(), metadata: [{ key: 'a', value: 'x' }, { key: 'b-2', value: 7 }] });
    expect(res.status).toBe(201);
    expect(res.body.data.metadata).toEqual({ a: 'x', 'b-2': 7 });
  });

  it('starts no workflow of its own: the expiry sweep, already running, owns its clock', async () => {
    const res = await create(validBody());
    expect(res.status).toBe(201);
    const sweep = await stack.temporal.workflow.getHandle(sessionExpiryWorkflowId(stack.config.temporal.taskQueue)).describe();
    expect(sweep.status.name).toBe('RUNNING');
    // The session's checkout workflow comes with its first pay, not with its creation.
    await expect(stack.temporal.workflow.getHandle(checkoutWorkflowId(res.body.data.id)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });
});
