/**
 * Where live payments are refused (production without an acquirer, and later a real acquirer), a live
 * dispute is decided by the acquirer, never by the simulator's test phrases: evidence with
 * `winning_evidence` in it stays under review after the network's review period until an operator enters
 * the acquirer's decision. Test mode keeps its phrases. On a database of its own: the live payment a
 * chargeback needs cannot be made through the API here (live payments are refused), so it is written
 * by hand, with a credit to cover the chargeback.
 */
import { randomUUID } from 'node:crypto';
import { enterDisputeDecision } from '../../src/modules/disputes/index.js';
import { creditAvailable } from '../support/seed.js';
import { eventually, paidSession, sql } from '../support/payments.js';
import { disputeIn, disputeWorkflow, openDispute } from '../support/disputes.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({ ALLOW_SIMULATED_LIVE_PAYMENTS: 'false', DISPUTE_REVIEW_PERIOD: '300ms' }, { ownDatabase: 'live_review' });

/** A live session paid before live payments were refused (or through a real acquirer): written by hand. */
async function livePaidSession(biz: TestBusiness): Promise<string> {
  const id = randomUUID();
  await sql(
    stack,
    `insert into checkout_sessions (id, business_id, livemode, user_id, status, subtotal, fee, total, description, customer_email, metadata, expires_at, created_at, updated_at, completed_at)
     values (?, ?, true, 'key_x', 'completed', 1000, 0, 1000, 'a live sale', 'a@b.example', '{}', now(), now(), now(), now())`,
    [id, biz.id],
  );
  await creditAvailable(stack.orm, { businessId: biz.id, livemode: true }, 5000);
  return id;
}

/** What the dispute's workflow says it is doing (its current details, as the Temporal UI shows them). */
async function workflowDetails(disputeId: string): Promise<string> {
  const handle = await disputeWorkflow(stack, disputeId);
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

const submit = (key: string, id: string) =>
  stack.http.post(`/api/disputes/${id}/evidence`, { uncategorizedText: 'Signed for at the door: winning_evidence', submit: true }, { key });

describe('a live dispute where live payments are refused', () => {
  it('is not decided by the test phrases: its evidence waits under review for the acquirer, whose decision an operator enters', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const { dispute } = await openDispute(stack, await livePaidSession(biz), { reason: 'fraudulent' });
    expect((await submit(biz.liveKey, dispute.id)).body.data.status).toBe('under_review');

    // The network's review has run (the workflow now waits for an operator) and decided nothing.
    await eventually('the review to pass the evidence on to the acquirer', async () => (await workflowDetails(dispute.id)).includes("waiting for the acquirer's decision"));
    expect((await stack.http.get(`/api/disputes/${dispute.id}`, { key: biz.liveKey })).body.data.status).toBe('under_review');
    expect(await sql(stack, `select type from events where payload->>'disputeId' = ? and type in ('dispute.funds_reinstated', 'dispute.closed')`, [dispute.id])).toEqual([]);

    const decided = await enterDisputeDecision(stack.orm.em.fork(), stack.temporal, dispute.id, 'lost');
    expect(decided).toMatchObject({ changed: true, dispute: { status: 'lost' } });
  });

  it('leaves test mode to the test phrases', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const { dispute } = await openDispute(stack, session.id, { reason: 'fraudulent' });
    expect((await submit(biz.testKey, dispute.id)).body.data.status).toBe('under_review');
    expect(await disputeIn(stack, biz, dispute.id, ['won'])).toMatchObject({ status: 'won' });
  });
});
