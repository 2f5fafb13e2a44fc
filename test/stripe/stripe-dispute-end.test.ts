/**
 * What Stripe is told when a Stripe dispute ends here otherwise than by Stripe's own event. A merchant's
 * acceptance is told (`disputes.close`, stripe-events.test.ts); a decision an operator entered is not an
 * acceptance, and a dispute decided won here must never be conceded at Stripe, where closing it would lose it.
 */
import { jest } from '@jest/globals';
import { disputeWorkflowId } from '../../contracts/workflow-ids.js';
import { decideDisputeUpdate } from '../../contracts/disputes.js';
import { eventually } from '../support/payments.js';
import { disputeEvent } from './stripe-events.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, stripe, livePayment, postEvent } = useStripeStack();

describe("a Stripe dispute's end, told to Stripe", () => {
  it('an operator deciding it won (dispute decide) closes it here and asks Stripe to close nothing', async () => {
    const paid = await livePayment();
    const du = `du_end${Date.now()}`;
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { id: du, paymentIntent: paid.intent, status: 'needs_response', amount: paid.total }))).body.data.disputeId;
    const handle = stack.temporal.workflow.getHandle(disputeWorkflowId(ours));
    await eventually('the dispute workflow to start', () => handle.describe().then(() => true, () => false));
    const decided = await handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: ours, outcome: 'won' }] });
    expect(decided).toMatchObject({ id: ours, status: 'won' });
    // The run ends after its last step, the acquirer's turn included: whatever it sent, it has sent.
    expect(await handle.result()).toBe('won');
    expect(stripe().requests.filter((r) => r.path.startsWith(`/v1/disputes/${du}`)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });
});
