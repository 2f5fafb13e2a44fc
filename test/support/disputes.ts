/** Helpers for tests of disputes: the acquirer's notice, waiting for the dispute, the money it moved. */
import { expect } from '@jest/globals';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { recordDisputeNotice } from '../../src/modules/disputes/index.js';

import type { DisputeReason } from '../../contracts/disputes.js';
import { eventually } from './payments.js';
import type { TestBusiness, TestStack } from './stack.js';
import { disputeWorkflowId } from '../../contracts/workflow-ids.js';

export const DISPUTE_CARDS = {
  chargebackFraudulent: '4000000000000259',
  chargebackNotReceived: '4000000000002685',
  inquiryFraudulent: '4000000000001976',
} as const;

/** The demo cart's total (tests/support/payments.ts): what a dispute of one of its payments takes back. */
export const TOTAL = 4658;
/** The default dispute fee. */
export const FEE = 1500;

/** The dispute of a session, once the acquirer's notice has opened it (a dispute card's, a few seconds after paying). */
export async function disputeOfSession(stack: TestStack, biz: TestBusiness, sessionId: string, key = biz.testKey): Promise<any> {
  return eventually(`a dispute of session ${sessionId}`, async () => (await polled(stack, `/api/disputes?checkoutSessionId=${sessionId}`, key))?.items[0]);
}

/**
 * One read of a poll through the API, paced as a merchant's would be: a 429 waits out its Retry-After and
 * counts as "not yet" instead of failing the wait, and every read is at least 250 ms after the last. A
 * poll at `eventually`'s 100 ms spends a standard key's 120-request burst in 12 s, which a slow machine's
 * dispute can take to open.
 */
async function polled(stack: TestStack, path: string, key: string): Promise<any> {
  const res = await stack.http.get(path, { key });
  // 429, or a 503 of a busy machine's moment: both carry Retry-After, and both mean "ask again".
  if (res.status === 429 || res.status === 503) {
    await new Promise((r) => setTimeout(r, Math.min(Number(res.headers['retry-after']) || 1, 3) * 1000));
    return undefined;
  }
  expect(res.status).toBe(200);
  await new Promise((r) => setTimeout(r, 150));
  return res.body.data;
}

/** The dispute once its status is one of `statuses` (the workflow's clocks and decisions move it). */
export async function disputeIn(stack: TestStack, biz: TestBusiness, id: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
  return eventually(`dispute ${id} to be ${statuses.join(' or ')}`, async () => {
    const dispute = await polled(stack, `/api/disputes/${id}`, biz.testKey);
    return dispute && statuses.includes(dispute.status) && dispute;
  }, timeoutMs);
}

/** What `npm run admin -- dispute open` does: the acquirer's notice, opened in one transaction, its workflow started by the relay. */
export async function openDispute(
  stack: TestStack,
  sessionId: string,
  opts: { reason?: DisputeReason; amountInCents?: number; inquiry?: boolean } = {},
) {
  return stack.orm.em.fork().transactional((tx) =>
    recordDisputeNotice(tx, { checkoutSessionId: sessionId, reason: opts.reason ?? 'general', amountInCents: opts.amountInCents ?? null, inquiry: opts.inquiry ?? false }, stack.config.disputes),
  );
}

/** The dispute's workflow handle, once the outbox's relay has started it. */
export async function disputeWorkflow(stack: TestStack, disputeId: string) {
  const handle = stack.temporal.workflow.getHandle(disputeWorkflowId(disputeId));
  await eventually(`the workflow of dispute ${disputeId} to start`, () => handle.describe().then(() => true, () => false));
  return handle;
}

export async function balance(stack: TestStack, key: string) {
  const res = await stack.http.get('/api/balance', { key });
  expect(res.status).toBe(200);
  return res.body.data as { availableInCents: number; reservedInCents: number; pendingInCents: number };
}

/** Every balance transaction of the key's business and mode, walking the cursor. */
export async function balanceTransactions(stack: TestStack, key: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await stack.http.get(`/api/balance/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(res.status).toBe(200);
    items.push(...res.body.data.items);
    cursor = res.body.data.meta.nextCursor;
  } while (cursor);
  return items;
}

/** The items sum to the balance, balance type by balance type. */
export async function expectTransactionsSumToBalance(stack: TestStack, key: string): Promise<void> {
  const [items, figures] = [await balanceTransactions(stack, key), await balance(stack, key)];
  const by: Record<string, number> = { available: 0, reserved: 0, pending_withdrawal: 0 };
  for (const item of items) by[item.balanceType] += item.netInCents;
  expect({ availableInCents: by.available, reservedInCents: by.reserved, pendingInCents: by.pending_withdrawal }).toEqual({
    availableInCents: figures.availableInCents,
    reservedInCents: figures.reservedInCents,
    pendingInCents: figures.pendingInCents,
  });
}

export async function expectLedgerVerified(stack: TestStack): Promise<void> {
  expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
}
