/**
 * Records the replay fixtures (test/replay/histories/) from real runs: the real API, activities,
 * PostgreSQL and Temporal dev server of test/support/stack.ts. Run on demand only:
 *
 *   npm run record-histories          (RECORD_HISTORIES=1, this file alone)
 *
 * Every other `npm test` skips it. Re-recording replaces the files it writes and keeps any other
 * fixture in the index (old-code histories stay until their keepUntil: docs/decisions.md, Workflow
 * versioning). The one branch today's code no longer takes, a charge failure declined at once, is
 * recorded by a worker running the payment workflow as it was before the `unknown-charge-lookup` patch
 * (`git show <commit>^:workflows/checkout-payment.ts` in a temporary copy of workflows/), so that fixture is a
 * real history of the old code too.
 */

import { randomUUID } from 'node:crypto';
import { DEMO_BUSINESS } from '../../src/modules/businesses/index.js';
import { checkoutWorkflow } from '../../workflows/checkout.js';
import { payUpdate } from '../../contracts/checkout.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { recordEvent } from '../../src/modules/events/index.js';
import { CARDS, createSession, eventually, parsedCard, pay, payBody, sql } from '../support/payments.js';
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import type { TestBusiness, TestStack } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { workerTaskQueue } from '../support/names.js';
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.js';
import { readIndex, writeIndex, type Fixture } from './fixtures.js';
import { enterDisputeDecision, recordDisputeNotice } from '../../src/modules/disputes/index.js';

import { DISPUTE_CARDS, disputeOfSession, disputeWorkflow } from '../support/disputes.js';
import { useStripeStack } from '../stripe/stripe-stack.js';
import { disputeEvent } from '../stripe/stripe-events.js';
import type { DisputeTimes } from '../../src/config.js';
import { closedHistory, copyOfWorkflows, saveHistory, sleepingHistory, startWorkerOn } from './recorder.js';
import { checkoutWorkflowId, disputeWorkflowId, refundWorkflowId, reserveReleaseWorkflowId, retentionScheduleId, sessionExpiryWorkflowId, webhookDeliveryWorkflowId, withdrawalWorkflowId } from '../../contracts/workflow-ids.js';

/** The commit that made an unknown charge outcome a lookup; its parent is the payment workflow before it. */
const LOOKUP_COMMIT = 'c86a951b157b535181a6dbc0203f1899ae7ed632';
const TIMEOUT_CHARGED = '4000000000000408';
/** The commit before the checkout workflow owned payments in doubt (and checked the session its messages name). */
const IN_DOUBT_PARENT = 'b02302caa4e60982bee9285183ce038bedf7eec1';

const record = process.env.RECORD_HISTORIES === '1' ? describe : describe.skip;
const recorded: Fixture[] = [];
/** RECORD_ONLY=<regex>: keep only the fixtures whose name matches (the rest are driven but not saved). */
const only = process.env.RECORD_ONLY ? new RegExp(process.env.RECORD_ONLY) : null;

/** Pays a new session with `card` (whatever the answer) and waits for its checkout workflow to close. */
async function payAndWait(stack: TestStack, biz: TestBusiness, card: string) {
  const session = await createSession(stack, biz.testKey);
  await pay(stack, session.id, payBody(card));
  const workflowId = checkoutWorkflowId(session.id);
  return { sessionId: session.id as string, workflowId, history: await closedHistory(stack.temporal, workflowId) };
}

/** Pays a new session with `card` and records the checkout workflow's history. */
async function payAndRecord(stack: TestStack, biz: TestBusiness, card: string, name: string, branch: string, recordedWith?: string) {
  const { sessionId, workflowId, history } = await payAndWait(stack, biz, card);
  recorded.push(saveHistory(history, { name, workflowId, workflowType: 'checkoutWorkflow', branch, recordedWith }));
  return sessionId;
}

/** A checkout workflow started as a lost pay leaves it: the run exists, no update ever reaches it. */
async function startWithoutPay(stack: TestStack, sessionId: string, workflow: typeof checkoutWorkflow | 'checkoutWorkflow' = checkoutWorkflow) {
  const [{ expires_at }] = await sql<{ expires_at: Date }>(stack, 'select expires_at from checkout_sessions where id = ?', [sessionId]);
  return stack.temporal.workflow.start(workflow, {
    workflowId: checkoutWorkflowId(sessionId),
    taskQueue: stack.config.temporal.taskQueue,
    args: [{ sessionId, expiresAt: new Date(expires_at).toISOString() }],
  });
}

/**
 * A session left `processing` by an attempt whose pay was lost (written as `beginPayment` writes it, a
 * minute ago), and its checkout workflow with no pay: the in-doubt check finds it and settles it. No
 * charge was made, so it fails.
 */
async function recordSettledInDoubt(stack: TestStack, biz: TestBusiness) {
  const session = await createSession(stack, biz.testKey);
  await sql(stack, `update checkout_sessions set status = 'processing', payment_attempt_id = ?, updated_at = now() - interval '1 minute' where id = ?`, [
    randomUUID(),
    session.id,
  ]);
  const handle = await startWithoutPay(stack, session.id);
  const history = await closedHistory(stack.temporal, handle.workflowId, 120_000);
  recorded.push(saveHistory(history, { name: 'checkout-payment-settled-in-doubt', workflowId: handle.workflowId, workflowType: 'checkoutWorkflow', branch: 'payment in doubt: no pay reached the workflow, the session is processing; settled (no charge: failed)' }));
}

/**
 * A pay whose first step committed in a task the server lost, delivered again after another pay found
 * the session in doubt: the session is `processing` under attempt A (as `beginPayment` writes it), a pay
 * of attempt B reaches the run first and finds it so, and A's own pay arrives while the settling waits:
 * A's attempt resumes (`in-doubt-pay-resumes`), is charged once and completes.
 */
async function recordResumedInDoubt(stack: TestStack, biz: TestBusiness) {
  const session = await createSession(stack, biz.testKey);
  const [first, second] = [randomUUID(), randomUUID()];
  // Begun 25 s ago, so the settling waits about 5 s before it would look the charge up.
  await sql(stack, `update checkout_sessions set status = 'processing', payment_attempt_id = ?, updated_at = now() - interval '25 seconds' where id = ?`, [first, session.id]);
  const handle = await startWithoutPay(stack, session.id);
  const pays = async (attemptId: string) => {
    const card = await simulatorProcessor.tokenize(parsedCard(CARDS.success, 2030), false);
    const request = { sessionId: session.id, attemptId, token: card.token, cardBrand: card.brand, cardLast4: card.last4, customerName: 'Ada Lovelace' };
    return handle.executeUpdate(payUpdate, { args: [request], updateId: attemptId });
  };
  const other = await pays(second);
  if (other.outcome !== 'not_payable' || other.status !== 'processing') throw new Error(`the other pay: ${JSON.stringify(other)}`);
  const own = await pays(first);
  if (own.outcome !== 'not_payable') throw new Error(`the own pay: ${JSON.stringify(own)}`);
  const history = await closedHistory(stack.temporal, handle.workflowId, 120_000);
  const [row] = await sql<{ status: string }>(stack, 'select status from checkout_sessions where id = ?', [session.id]);
  if (row.status !== 'completed') throw new Error(`resumed payment ended ${row.status}`);
  recorded.push(saveHistory(history, { name: 'checkout-payment-in-doubt-resumed', workflowId: handle.workflowId, workflowType: 'checkoutWorkflow', branch: 'payment in doubt: the pay that began it arrives while it is settled; its attempt resumes and completes' }));
}

/** The customer cancels a session whose checkout workflow waits for a pay: the workflow hears it and closes. */
async function recordCancelled(stack: TestStack, biz: TestBusiness, old?: { recordedWith: string }) {
  const session = await createSession(stack, biz.testKey);
  const handle = await startWithoutPay(stack, session.id, old ? 'checkoutWorkflow' : checkoutWorkflow);
  if (old) {
    // The signal as the API sent it before it named its session.
    await sql(stack, `update checkout_sessions set status = 'cancelled' where id = ?`, [session.id]);
    await handle.signal('sessionClosed', 'cancelled');
  } else {
    const res = await stack.http.post(`/checkout/${session.id}/cancel`, undefined, { offDocument: true });
    if (res.status !== 303) throw new Error(`cancel: ${res.status} ${res.text}`);
  }
  const name = old ? 'checkout-session-cancelled-before-payment-in-doubt' : 'checkout-session-cancelled';
  const branch = old ? 'checkout: the customer cancels; the closed signal without its session id (code before payment-in-doubt)' : 'checkout: the customer cancels the session its workflow waits on';
  recorded.push(saveHistory(await closedHistory(stack.temporal, handle.workflowId), { name, workflowId: handle.workflowId, workflowType: 'checkoutWorkflow', branch, recordedWith: old?.recordedWith }));
}

/** Waits for a reserve's release and records it. */
async function recordRelease(stack: TestStack, sessionId: string, name: string, branch: string, outcome: string) {
  const [reserve] = await sql<{ id: string }>(stack, 'select id from reserves where payment_id = ?', [sessionId]);
  const workflowId = reserveReleaseWorkflowId(reserve.id);
  const history = await closedHistory(stack.temporal, workflowId);
  const result = await stack.temporal.workflow.getHandle(workflowId).result();
  if (result !== outcome) throw new Error(`${workflowId} ended ${result}, not ${outcome}`);
  recorded.push(saveHistory(history, { name, workflowId, workflowType: 'reserveReleaseWorkflow', branch }));
}

async function refundAndRecord(stack: TestStack, biz: TestBusiness, card: string, name: string, branch: string) {
  const session = await createSession(stack, biz.testKey);
  await pay(stack, session.id, payBody(card));
  await closedHistory(stack.temporal, checkoutWorkflowId(session.id));
  const res = await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey });
  if (res.status !== 201) throw new Error(`refund: ${res.status} ${res.text}`);
  const workflowId = refundWorkflowId(res.body.data.id);
  recorded.push(saveHistory(await closedHistory(stack.temporal, workflowId), { name, workflowId, workflowType: 'refundWorkflow', branch }));
}

async function withdraw(stack: TestStack, walletEmail: string) {
  const biz = await stack.business();
  await addWalletMethod(stack.orm, biz.id, walletEmail);
  await creditAvailable(stack.orm, testMode(biz.id), 10_000);
  const body = { amount: 40, destinationType: 'wallet', destinationDetails: { walletEmail } };
  const res = await stack.http.post('/api/withdrawals', body, { key: biz.testKey });
  if (res.status !== 201) throw new Error(`withdrawal: ${res.status} ${res.text}`);
  return { biz, id: res.body.data.id as string };
}

async function withdrawAndRecord(stack: TestStack, walletEmail: string, name: string, branch: string) {
  const { id } = await withdraw(stack, walletEmail);
  const workflowId = withdrawalWorkflowId(id);
  recorded.push(saveHistory(await closedHistory(stack.temporal, workflowId), { name, workflowId, workflowType: 'withdrawalWorkflow', branch }));
}

record('recording replay fixtures from the real dev server', () => {
  afterAll(() => {
    const kept = recorded.filter((f) => !only || only.test(f.file.replace(/\.json$/, '')));
    if (!kept.length) return;
    const names = new Set(kept.map((f) => f.file));
    writeIndex([...readIndex().filter((f) => !names.has(f.file)), ...kept]);
  });

  describe('a stack whose webhooks go to a receiver, and withdrawals pay after 1 s', () => {
    let receiver: Receiver;
    // The spec's 7 attempts, a second apart instead of over a day (tests only).
    const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s,1s,1s,1s,1s', WITHDRAWAL_PROCESSING_DELAY: '1s' }));
    afterAll(async () => receiver?.close());

    it('today\'s code: payments, refunds, reserve release, withdrawals, the retention run', async () => {
      const biz = await stack.business();
      await payAndRecord(stack, biz, CARDS.success, 'checkout-payment-succeeded', 'payment: success');
      await payAndRecord(stack, biz, CARDS.declined, 'checkout-payment-declined', 'payment: decline');
      await payAndRecord(stack, biz, TIMEOUT_CHARGED, 'checkout-payment-unknown-then-charged', 'payment: unknown outcome resolved, charged (lookUpCharge finds it)');
      await payAndRecord(stack, biz, CARDS.processingError, 'checkout-payment-unknown-then-not-found', 'payment: unknown outcome resolved, not found (failed)');
      await recordSettledInDoubt(stack, biz);
      await recordResumedInDoubt(stack, biz);
      await recordCancelled(stack, biz);

      await refundAndRecord(stack, biz, CARDS.success, 'refund-completed', 'refund: completed');
      await refundAndRecord(stack, biz, CARDS.refundDeclined, 'refund-failed', 'refund: failed (the processor declines it)');

      const shortHold = await stack.business({ reserveHoldMs: 3_000 });
      const paid = await payAndRecord(stack, shortHold, CARDS.success, 'checkout-payment-succeeded-short-hold', 'payment: success, 3 s reserve hold');
      await recordRelease(stack, paid, 'reserve-release-released', 'reserve release: released', 'released');
      // All held, 8 s: the refund of a second payment (4658) takes the whole first reserve (4498) before
      // its hold ends, so its release finds nothing left.
      const allHeld = await stack.business({ reserveBps: 10_000, reserveHoldMs: 8_000 });
      const consumed = (await payAndWait(stack, allHeld, CARDS.success)).sessionId;
      const refunded = (await payAndWait(stack, allHeld, CARDS.success)).sessionId;
      const refund = await stack.http.post('/api/refunds', { checkoutSessionId: refunded }, { key: allHeld.testKey });
      if (refund.status !== 201) throw new Error(`refund: ${refund.status} ${refund.text}`);
      await recordRelease(stack, consumed, 'reserve-release-nothing-left', 'reserve release: nothing left (a refund consumed the reserve)', 'nothing_to_release');

      await withdrawAndRecord(stack, 'payouts@merchant.example', 'withdrawal-paid', 'withdrawal: paid');
      await withdrawAndRecord(stack, 'payouts@fail.test', 'withdrawal-failed', 'withdrawal: failed (the wallet cannot receive funds)');

      const schedule = stack.temporal.schedule.getHandle(retentionScheduleId(stack.config.temporal.taskQueue));
      await schedule.trigger();
      const action = await eventually('the triggered retention run', async () => (await schedule.describe()).info.recentActions.at(-1)?.action);
      recorded.push(
        saveHistory(await closedHistory(stack.temporal, action.workflow.workflowId), {
          name: 'retention',
          workflowId: action.workflow.workflowId,
          workflowType: 'retentionWorkflow',
          branch: 'retention (scheduled run)',
        }),
      );
    }, 600_000);

    it('today\'s code: webhook deliveries (first try, retries, exhausted, Retry-After, a throttled turn)', async () => {
      const deliveriesTo = (endpointId: string) =>
        sql<{ id: string }>(stack, 'select id from webhook_deliveries where endpoint_id = ? order by created_at', [endpointId]);
      const emit = (merchant: TestBusiness) =>
        stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: merchant.id, livemode: false }, 'checkout.succeeded', { sessionId: 'ses-recorded' }));
      const webhooks: [string, string, Answer[]][] = [
        ['webhook-delivery-first-try', 'webhook delivery: first-try success', [{ status: 200 }]],
        ['webhook-delivery-after-retries', 'webhook delivery: success after retries (500, then 200)', [{ status: 500 }, { status: 200 }]],
        ['webhook-delivery-exhausted', 'webhook delivery: exhausted after 7 attempts', [{ status: 500 }]],
        ['webhook-delivery-retry-after', "webhook delivery: the receiver's Retry-After (429, 2 s) replaces the next delay", [{ status: 429, headers: { 'Retry-After': '2' } }, { status: 200 }]],
      ];
      for (const [name, branch, answers] of webhooks) {
        const merchant = await stack.business();
        const created = await stack.http.post('/api/webhooks', { url: receiver.url(answers), events: ['checkout.succeeded'] }, { key: merchant.testKey });
        if (created.status !== 201) throw new Error(`webhook endpoint: ${created.status} ${created.text}`);
        await emit(merchant);
        const [delivery] = await eventually(`a delivery for ${name}`, () => deliveriesTo(created.body.data.endpoint.id).then((r) => r.length && r));
        const workflowId = webhookDeliveryWorkflowId(delivery.id);
        recorded.push(saveHistory(await closedHistory(stack.temporal, workflowId), { name, workflowId, workflowType: 'webhookDeliveryWorkflow', branch }));
      }

      // One attempt a second: of two deliveries made together, one waits for the turn the other left it.
      const merchant = await stack.business();
      const throttled = await stack.http.post('/api/webhooks', { url: receiver.url(), events: ['checkout.succeeded'], rateLimitPerSecond: 1 }, { key: merchant.testKey });
      if (throttled.status !== 201) throw new Error(`webhook endpoint: ${throttled.status} ${throttled.text}`);
      await emit(merchant);
      await emit(merchant);
      const both = await eventually('two throttled deliveries', () => deliveriesTo(throttled.body.data.endpoint.id).then((r) => r.length === 2 && r));
      const histories = await Promise.all(both.map((d) => closedHistory(stack.temporal, webhookDeliveryWorkflowId(d.id))));
      const waited = histories.findIndex((h) => h.events?.some((e) => e.timerStartedEventAttributes));
      if (waited < 0) throw new Error('neither throttled delivery waited for its turn');
      const workflowId = webhookDeliveryWorkflowId(both[waited].id);
      recorded.push(
        saveHistory(histories[waited], { name: 'webhook-delivery-throttled', workflowId, workflowType: 'webhookDeliveryWorkflow', branch: "webhook delivery: waits for the endpoint's turn (1 attempt a second), then delivered" }),
      );
    }, 300_000);
  });

  describe('a stack of its own queue, whose sessions live 3 s and withdrawals stay pending an hour', () => {
    // A queue of its own, so this sweep starts fresh; sessions that live 3 s; withdrawals pending an hour.
    const taskQueue = `${workerTaskQueue()}-record-expiry`;
    const stack = useStack({ TEMPORAL_TASK_QUEUE: taskQueue, SESSION_TTL: '3s', WITHDRAWAL_PROCESSING_DELAY: '1h' });

    it('today\'s code: the session expiry sweep, a withdrawal cancelled while pending', async () => {
      const { biz, id } = await withdraw(stack, 'payouts@merchant.example');
      const cancelled = await stack.http.post(`/api/withdrawals/${id}/cancel`, undefined, { key: biz.testKey });
      if (cancelled.status !== 200) throw new Error(`cancel: ${cancelled.status} ${cancelled.text}`);
      const withdrawalFlow = withdrawalWorkflowId(id);
      recorded.push(
        saveHistory(await closedHistory(stack.temporal, withdrawalFlow), {
          name: 'withdrawal-cancelled',
          workflowId: withdrawalFlow,
          workflowType: 'withdrawalWorkflow',
          branch: 'withdrawal: cancelled while pending',
        }),
      );

      const session = await createSession(stack, biz.testKey);
      await eventually('the sweep to cancel the session', async () => (await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]))[0].status === 'cancelled', 30_000);
      const sweepFlow = sessionExpiryWorkflowId(taskQueue);
      // Three sweeps at least: the one at start, the one that cancelled the session, and the next plan.
      recorded.push(
        saveHistory(await sleepingHistory(stack.temporal, sweepFlow, 3), {
          name: 'session-expiry-sweeps',
          workflowId: sweepFlow,
          workflowType: 'sessionExpiryWorkflow',
          branch: 'session expiry (sweeps, one cancelling a session; open, asleep on its timer)',
        }),
      );
    }, 300_000);
  });

  describe("a stack whose cards' dispute notices come after 1 s, and the network reviews in 1 s", () => {
    const stack = useStack({ DISPUTE_NOTICE_DELAY: '1s', DISPUTE_REVIEW_PERIOD: '1s' });

    it("today's code: disputes (cards' notices, evidence won and lost, inquiries closed and escalated, accepted, decided, silence, the reminder, reversed)", async () => {
      const HOUR = 3600_000;
      const saveDispute = async (id: string, name: string, branch: string, history?: Awaited<ReturnType<typeof closedHistory>>) => {
        const workflowId = disputeWorkflowId(id);
        recorded.push(saveHistory(history ?? (await closedHistory(stack.temporal, workflowId)), { name, workflowId, workflowType: 'disputeWorkflow', branch }));
      };
      const biz = await stack.business({ reserveBps: 0 });
      const key = biz.testKey;
      const evidence = (id: string, text: string) => stack.http.post(`/api/disputes/${id}/evidence`, { uncategorizedText: text, submit: true }, { key });
      const close = (id: string) => stack.http.post(`/api/disputes/${id}/close`, undefined, { key });
      const paidWith = async (card: string) => {
        const session = await createSession(stack, key);
        await pay(stack, session.id, payBody(card));
        return session.id as string;
      };
      /** A notice an operator enters (`dispute open`), with its own clocks. */
      const entered = async (times: Partial<DisputeTimes> = {}) => {
        const sessionId = await paidWith(CARDS.success);
        const notice = { checkoutSessionId: sessionId, reason: 'general' as const, amountInCents: null, inquiry: false };
        const { dispute } = await stack.orm.em.fork().transactional((tx) => recordDisputeNotice(tx, notice, { ...stack.config.disputes, ...times }));
        await disputeWorkflow(stack, dispute.id);
        return dispute.id;
      };
      for (let i = 0; i < 6; i++) await paidWith(CARDS.success); // funds for the chargebacks and the refund

      const won = await disputeOfSession(stack, biz, await paidWith(DISPUTE_CARDS.chargebackFraudulent));
      await evidence(won.id, 'winning_evidence');
      await saveDispute(won.id, 'dispute-chargeback-won', "dispute: a card's notice (after its delay), evidence won by the network");
      const lost = await disputeOfSession(stack, biz, await paidWith(DISPUTE_CARDS.chargebackNotReceived));
      await evidence(lost.id, 'losing_evidence');
      await saveDispute(lost.id, 'dispute-chargeback-lost', "dispute: a card's notice, evidence lost by the network");
      const closedInquiry = await disputeOfSession(stack, biz, await paidWith(DISPUTE_CARDS.inquiryFraudulent));
      await evidence(closedInquiry.id, 'winning_evidence');
      await saveDispute(closedInquiry.id, 'dispute-inquiry-closed', 'dispute: an inquiry, evidence won, warning_closed');
      const escalated = await disputeOfSession(stack, biz, await paidWith(DISPUTE_CARDS.inquiryFraudulent));
      await evidence(escalated.id, 'losing_evidence');
      await eventually('the inquiry to escalate', async () => (await stack.http.get(`/api/disputes/${escalated.id}`, { key })).body.data.status === 'needs_response');
      await close(escalated.id);
      await saveDispute(escalated.id, 'dispute-inquiry-escalated', 'dispute: an inquiry, evidence lost, escalated to a chargeback with a fresh window, then accepted');

      const accepted = await entered();
      await close(accepted);
      await saveDispute(accepted, 'dispute-chargeback-accepted', 'dispute: entered by an operator, accepted by the merchant (the signal)');
      const decided = await entered();
      await evidence(decided, 'Delivered and signed for.');
      await eventually('the network to review it and leave it under review', async () =>
        ((await stack.temporal.workflow.getHandle(disputeWorkflowId(decided)).fetchHistory()).events ?? []).filter((e) => e.markerRecordedEventAttributes).length >= 2,
      );
      await enterDisputeDecision(stack.orm.em.fork(), stack.temporal, decided, 'won');
      await saveDispute(decided, 'dispute-chargeback-decided', "dispute: evidence the network leaves under review, won by an operator's decision (the update)");
      const silent = await entered({ responseWindowMs: 3000 });
      await saveDispute(silent, 'dispute-chargeback-lost-by-silence', 'dispute: no evidence by evidenceDueBy, lost');
      const reminded = await entered({ responseWindowMs: 48 * HOUR + 3000 });
      const open = await eventually('the reminder, then the wait for the deadline', async () => {
        const history = await stack.temporal.workflow.getHandle(disputeWorkflowId(reminded)).fetchHistory();
        const events = history.events ?? [];
        return events.filter((e) => e.markerRecordedEventAttributes).length >= 2 && events.at(-1)?.timerStartedEventAttributes && history;
      }, 30_000);
      await saveDispute(reminded, 'dispute-reminded', 'dispute: the 48-hour reminder sent (open, asleep until evidenceDueBy)', open);

      const refundedId = await paidWith(DISPUTE_CARDS.chargebackFraudulent);
      const refund = await stack.http.post('/api/refunds', { checkoutSessionId: refundedId }, { key });
      if (refund.status !== 201) throw new Error(`refund: ${refund.status} ${refund.text}`);
      const [start] = await eventually('the dispute workflow of the refunded payment', () =>
        sql<{ message: { workflowId: string } }>(stack, `select message from outbox where message->>'workflowType' = 'disputeWorkflow' and message->'args'->0->'notice'->>'checkoutSessionId' = ?`, [refundedId]).then((r) => r.length && r),
      );
      const reversedId = start.message.workflowId.replace(/^dispute-/, '');
      await saveDispute(reversedId, 'dispute-reversed', "dispute: the notice finds the payment refunded, the acquirer reverses it, nothing opens");
    }, 300_000);
  });

  describe('a stack whose live mode goes to Stripe (stripe-mock, with recorded answers where it cannot know)', () => {
    const { stack, biz, stripe, livePayment, postEvent } = useStripeStack();

    it("today's code: a Stripe dispute (its evidence sent, won by Stripe's event; another accepted by the merchant, told to Stripe)", async () => {
      const save = async (id: string, name: string, branch: string) => {
        const workflowId = disputeWorkflowId(id);
        recorded.push(saveHistory(await closedHistory(stack.temporal, workflowId), { name, workflowId, workflowType: 'disputeWorkflow', branch }));
      };
      const opened = async (du: string) => {
        const paid = await livePayment();
        const dispute = { id: du, paymentIntent: paid.intent, amount: paid.total };
        const res = await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'needs_response' }));
        await disputeWorkflow(stack, res.body.data.disputeId);
        return { id: res.body.data.disputeId as string, dispute };
      };
      const won = await opened(`du_record_won_${Date.now()}`);
      await stack.http.post(`/api/disputes/${won.id}/evidence`, { uncategorizedText: 'Delivered and signed for.', submit: true }, { key: biz.liveKey });
      await eventually('the evidence to reach Stripe', () => stripe().requests.find((r) => r.path === `/v1/disputes/${won.dispute.id}`));
      await postEvent(await disputeEvent('charge.dispute.closed', { ...won.dispute, status: 'won' }));
      await save(won.id, 'dispute-acquirer-won', "dispute: Stripe's, evidence sent to Stripe, won by its charge.dispute.closed");
      const accepted = await opened(`du_record_accepted_${Date.now()}`);
      await stack.http.post(`/api/disputes/${accepted.id}/close`, undefined, { key: biz.liveKey });
      await save(accepted.id, 'dispute-acquirer-accepted', "dispute: Stripe's, accepted by the merchant, told to Stripe (disputes.close)");
    }, 300_000);
  });

  describe('a stack whose only worker runs older workflow code', () => {
    let old: ReturnType<typeof copyOfWorkflows> | undefined;
    let stopWorker: (() => Promise<void>) | undefined;
    // Declared before the stack's: the old worker stops before the stack it polls for.
    afterAll(async () => {
      await stopWorker?.();
      old?.remove();
    });
    const stack = useStack({ TEMPORAL_TASK_QUEUE: `${workerTaskQueue()}-record-old-code` }, { worker: false });

    it('the payment workflow before `unknown-charge-lookup`: a charge failure declined at once', async () => {
      old = copyOfWorkflows(`${LOOKUP_COMMIT}^`, ['payment.ts']);
      stopWorker = await startWorkerOn(stack, old.workflowsPath);
      const biz = await stack.business({ ...DEMO_BUSINESS, name: 'Old code' });
      await payAndRecord(
        stack,
        biz,
        CARDS.processingError,
        'checkout-payment-charge-failed-before-lookup',
        'payment: charge failed, declined at once (code before the unknown-charge-lookup patch)',
        `workflows/checkout-payment.ts at ${LOOKUP_COMMIT.slice(0, 7)}^`,
      );
    }, 300_000);

    it('the checkout workflow before `payment-in-doubt`: the closed signal without its session id', async () => {
      old?.remove();
      await stopWorker?.();
      old = copyOfWorkflows(IN_DOUBT_PARENT, ['checkout.ts', 'checkout-payment.ts']);
      stopWorker = await startWorkerOn(stack, old.workflowsPath);
      const biz = await stack.business({ ...DEMO_BUSINESS, name: 'Old code' });
      await recordCancelled(stack, biz, { recordedWith: `workflows/checkout.ts at ${IN_DOUBT_PARENT.slice(0, 7)}` });
    }, 300_000);
  });
});
