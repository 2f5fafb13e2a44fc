/**
 * What the property tests over random money moves share (the balance-transaction invariant, the money
 * invariants with disputes): a withdrawal that ends paid, failed or cancelled, and the wait until every
 * move a sequence started has settled.
 */
import { expect } from '@jest/globals';
import { eventually, sql } from './payments.js';
import { WALLET_EMAIL } from './seed.js';
import type { TestBusiness, TestStack } from './stack.js';

/** A wallet the simulated payout rail refuses: a withdrawal to it fails. Registered as any other. */
export const FAILING_WALLET = 'payouts@fail.test';

/**
 * A withdrawal of `share` per cent of `available` cents (nothing when that is under a cent): paid, or
 * failed (to FAILING_WALLET), or cancelled at once, which its processing may already have overtaken.
 */
export async function withdrawShare(stack: TestStack, key: string, available: number, share: number, outcome: 'paid' | 'failed' | 'cancel'): Promise<void> {
  const cents = Math.floor((available * share) / 100);
  if (cents < 1) return;
  const walletEmail = outcome === 'failed' ? FAILING_WALLET : WALLET_EMAIL;
  const res = await stack.http.post('/api/withdrawals', { amount: cents / 100, destinationType: 'wallet', destinationDetails: { walletEmail } }, { key });
  expect(res.status).toBe(201);
  if (outcome === 'cancel') expect([200, 400]).toContain((await stack.http.post(`/api/withdrawals/${res.body.data.id}/cancel`, undefined, { key })).status);
}

/**
 * Every refund and withdrawal of the business finished, and every reserve due released (or used up),
 * or due within the next two seconds: a caller reads the balance and its transactions one after the
 * other, and a release landing between the two reads made them disagree (a reserve due 0.4 s before
 * passed for settled when this waited only for reserves due a second ago).
 */
export async function settled(stack: TestStack, biz: TestBusiness): Promise<void> {
  await eventually(`business ${biz.id}'s money moves to settle`, async () => {
    const [row] = await sql(
      stack,
      `select (select count(*) from refunds where business_id = ? and status in ('pending', 'processing'))::int
            + (select count(*) from withdrawals where business_id = ? and status in ('pending', 'processing'))::int
            + (select count(*) from reserves where business_id = ? and status in ('active', 'partially_released') and release_at < now() + interval '2 seconds')::int
              as busy`,
      [biz.id, biz.id, biz.id],
    );
    return row.busy === 0;
  }, 60_000);
}
