/**
 * Events in the order they happened, as a receiver sees them: every delivery carries its event's
 * `createdAt` and `sequence`, and a record's events sorted by `sequence` come in the order they happened,
 * their times never going back. A dispute: `created`, then `funds_withdrawn`, then its updates; a
 * payment, then its refund's `created` and `completed`. The events one move records together are also
 * fanned out in that order (their first attempts leave in it).
 */
import { createSession, payToCompletion, payBody, sql } from '../support/payments.js';
import { DISPUTE_CARDS, disputeIn, disputeOfSession } from '../support/disputes.js';
import { useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
const stack = useStack(async () => ({
  WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile,
  DISPUTE_NOTICE_DELAY: '300ms',
  DISPUTE_REVIEW_PERIOD: '500ms',
}));
afterAll(() => receiver?.close());

interface Delivered {
  id: string;
  type: string;
  createdAt: string;
  sequence: number;
  payload: Record<string, unknown>;
}

/** What the endpoint at `url` received, one body per event (a retry's repeat folded), sorted as a receiver would. */
function receivedAt(url: string): Delivered[] {
  const byId = new Map<string, Delivered>();
  for (const r of receiver.at(url)) {
    const body = JSON.parse(r.rawBody.toString()) as Delivered;
    byId.set(body.id, body);
  }
  return [...byId.values()].sort((a, b) => a.sequence - b.sequence);
}

function expectInOrder(events: Delivered[], types: string[]): void {
  expect(events.map((e) => e.type)).toEqual(types);
  for (const event of events) {
    expect(Number.isSafeInteger(event.sequence) && event.sequence > 0).toBe(true);
    expect(Number.isNaN(Date.parse(event.createdAt))).toBe(false);
  }
  for (let i = 1; i < events.length; i++) {
    expect(events[i].sequence).toBeGreaterThan(events[i - 1].sequence);
    expect(Date.parse(events[i].createdAt)).toBeGreaterThanOrEqual(Date.parse(events[i - 1].createdAt));
  }
}

describe('the events of one record, as a receiver sorts them by sequence', () => {
  it('a dispute: created, then funds_withdrawn, then its updates, in order; the two of its opening fanned out in that order', async () => {
    const biz = await stack.business();
    const url = receiver.url();
    expect((await stack.http.post('/api/webhooks', { url, events: ['*'] }, { key: biz.testKey })).status).toBe(201);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id, payBody(DISPUTE_CARDS.chargebackNotReceived));
    const dispute = await disputeOfSession(stack, biz, session.id);
    await stack.http.post(`/api/disputes/${dispute.id}/evidence`, { shippingCarrier: 'UPS' }, { key: biz.testKey });
    await stack.http.post(`/api/disputes/${dispute.id}/evidence`, { uncategorizedText: 'winning_evidence', submit: true }, { key: biz.testKey });
    await disputeIn(stack, biz, dispute.id, ['won']);

    const ofDispute = () => receivedAt(url).filter((e) => e.payload.disputeId === dispute.id);
    await eventually(() => ofDispute().length === 6);
    expectInOrder(ofDispute(), ['dispute.created', 'dispute.funds_withdrawn', 'dispute.updated', 'dispute.updated', 'dispute.funds_reinstated', 'dispute.closed']);
    // The payment came before all of them.
    const paid = receivedAt(url).find((e) => e.type === 'checkout.succeeded')!;
    expect(paid.sequence).toBeLessThan(ofDispute()[0].sequence);

    // Fanned out in order: the opening's two events' deliveries were written one after the other.
    const fannedOut = await sql<{ type: string }>(
      stack,
      `select e.type from webhook_deliveries d join events e on e.id = d.event_id
       where e.payload->>'disputeId' = ? and e.type in ('dispute.created', 'dispute.funds_withdrawn') order by d.created_at, d.id`,
      [dispute.id],
    );
    expect(fannedOut.map((d) => d.type)).toEqual(['dispute.created', 'dispute.funds_withdrawn']);
  }, 60_000);

  it('a payment, then its refund: checkout.succeeded, refund.created, refund.completed', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const url = receiver.url();
    expect((await stack.http.post('/api/webhooks', { url, events: ['*'] }, { key: biz.testKey })).status).toBe(201);
    const earlier = await createSession(stack, biz.testKey); // a refund returns the whole total, fees included
    await payToCompletion(stack, earlier.id);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id);
    expect((await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey })).status).toBe(201);

    const ofSession = () => receivedAt(url).filter((e) => e.payload.sessionId === session.id);
    await eventually(() => ofSession().length === 3);
    expectInOrder(ofSession(), ['checkout.succeeded', 'refund.created', 'refund.completed']);
  }, 60_000);
});
