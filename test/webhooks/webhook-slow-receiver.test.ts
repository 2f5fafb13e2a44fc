/**
 * A merchant's receiver that hangs must not hold anyone's payments back. A webhook attempt is a local
 * activity, and its workflow task stays open while it runs (up to 30 s): with the SDK's 40 workflow task
 * slots, 60 deliveries to a receiver that answers after 28 s held a payment's workflow task until the pay
 * call's 10 s wait ran out, and the customer was told `processing` (src/temporal/worker.ts, the slots).
 */
import { recordEvent } from '../../src/modules/events/event.service.js';
import { createSession, pay } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile }));
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

it('a payment completes while 60 deliveries wait on a receiver that answers after 28 s', async () => {
  const url = receiver.url([{ status: 200, holdMs: 28_000 }]);
  expect((await stack.http.post('/api/webhooks', { url, events: ['refund.created'] }, { key: biz.testKey })).status).toBe(201);
  const owner = { businessId: biz.id, livemode: false };
  for (let i = 0; i < 60; i++) await stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, owner, 'refund.created', { i }));
  // Every delivery's attempt is under way (the receiver holds each request) before the customer pays.
  await eventually(() => receiver.at(url).length >= 60, 20_000);

  const session = await createSession(stack, biz.testKey);
  const paid = await pay(stack, session.id);
  expect(paid.status).toBe(200);
  expect(paid.body.data.status).toBe('completed');
}, 90_000);
