/**
 * A merchant's receiver that hangs must not hold anyone's payments back. A webhook attempt is a local
 * activity, and its workflow task stays open while it runs (up to 30 s): with the SDK's 40 workflow task
 * slots, 60 deliveries to a receiver that answers after 28 s held a payment's workflow task until the pay
 * call's 10 s wait ran out, and the customer was told `processing` (src/temporal/worker.ts, the slots).
 */
import { recordEvent } from '../../src/modules/events/index.js';
import { createSession, pay } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
// A hung attempt is cut off by its own deadline (10 s) and, with this schedule, sent again a second later:
// hung deliveries keep their slots taken for as long as the test needs, however slowly the machine runs.
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s,1s,1s,1s,1s' }));
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

/** The SDK's default workflow task slots: more hung attempts than this held every slot before. */
const SDK_DEFAULT_SLOTS = 40;

it(`a payment completes while more than ${SDK_DEFAULT_SLOTS} deliveries hang on a receiver that never answers`, async () => {
  const url = receiver.url([{ status: 200, holdMs: 120_000 }]);
  expect((await stack.http.post('/api/webhooks', { url, events: ['refund.created'] }, { key: biz.testKey })).status).toBe(201);
  const owner = { businessId: biz.id, livemode: false };
  for (let i = 0; i < 60; i++) await stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, owner, 'refund.created', { i }));
  // The customer pays while more attempts than the SDK's default slots are held open at the receiver at once.
  await eventually(() => receiver.openAt(url) > SDK_DEFAULT_SLOTS, 60_000);

  const session = await createSession(stack, biz.testKey);
  expect(receiver.openAt(url)).toBeGreaterThan(SDK_DEFAULT_SLOTS);
  const paid = await pay(stack, session.id);
  expect(paid.status).toBe(200);
  expect(paid.body.data.status).toBe('completed');
}, 150_000);
