import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { eventually } from '../support/payments.js';
import { addWithdrawalMethod } from '../../src/modules/withdrawals/index.js';
import { balanceOf, creditAvailable, entrySums, testMode } from '../support/seed.js';

/** A one-second processing delay, so the workflow pays out (or fails) while the test waits. */
const stack = useStack({ WITHDRAWAL_PROCESSING_DELAY: '1s' });

type Destination = { destinationType: string; destinationDetails: Record<string, string> };

/** A business with `cents` available that registered the destination it will pay (the simulator's failing ones too). */
async function fundedBusiness(cents: number, destination: Destination): Promise<TestBusiness> {
  const biz = await stack.business();
  await addWithdrawalMethod(stack.orm.em.fork(), biz.id, destination.destinationType as 'wallet' | 'crypto', destination.destinationDetails);
  await creditAvailable(stack.orm, testMode(biz.id), cents);
  return biz;
}

async function withdrawAndSettle(biz: TestBusiness, body: Destination & { amount: number }) {
  const created = await stack.http.post('/api/withdrawals', body, { key: biz.testKey });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  const handle = stack.temporal.workflow.getHandle(`withdrawal-${id}`);
  // The start is dispatched right after the commit, not inside the request: wait until it exists.
  await eventually(`withdrawal ${id}'s workflow to be started`, () => handle.describe().catch(() => undefined));
  await handle.result();
  return (await stack.http.get(`/api/withdrawals/${id}`, { key: biz.testKey })).body.data;
}

async function eventsFor(withdrawalId: string) {
  return stack.orm.em
    .getConnection()
    .execute<{ type: string; payload: Record<string, unknown> }[]>(`select type, payload from events where payload->>'withdrawalId' = ?`, [withdrawalId]);
}

const cancel = (biz: TestBusiness, id: string) => stack.http.post(`/api/withdrawals/${id}/cancel`, undefined, { key: biz.testKey });

describe('the withdrawal workflow on the simulator', () => {
  it('pays a wallet withdrawal: completed with a processor transaction id, money to payouts clearing, withdrawal.paid', async () => {
    const to = { destinationType: 'wallet', destinationDetails: { walletEmail: 'me@wallet.example' } };
    const biz = await fundedBusiness(10_000, to);
    const w = await withdrawAndSettle(biz, { amount: 40, ...to });
    expect(w.status).toBe('completed');
    expect(w.processorTransactionId).toMatch(/^po_sim_/);
    expect(w).not.toHaveProperty('transactionHash');
    expect(new Date(w.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(w.requestedAt).getTime() + 1000);
    const owner = testMode(biz.id);
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 6_000, pendingWithdrawal: 0 });
    expect((await entrySums(stack.orm, owner)).payouts_clearing).toBe(4_000);
    const events = await eventsFor(w.id);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('withdrawal.paid');
    expect(events[0].payload).toEqual({
      withdrawalId: w.id,
      amount: 4_000,
      amountInDecimals: '40.00',
      currency: 'USD',
      destinationType: 'wallet',
      status: 'completed',
      processorTransactionId: w.processorTransactionId,
      timestamp: w.completedAt,
    });
    const refused = await cancel(biz, w.id);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'validation_error', message: 'Cannot cancel withdrawal in completed status' });
  });

  it('pays a crypto withdrawal with a transaction hash', async () => {
    const to = {
      destinationType: 'crypto',
      destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'ERC20', cryptoAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
    };
    const biz = await fundedBusiness(10_000, to);
    const w = await withdrawAndSettle(biz, { amount: 12.34, ...to });
    expect(w.status).toBe('completed');
    expect(w.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(w).not.toHaveProperty('processorTransactionId');
  });

  it.each([
    ['a wallet at fail.test', { destinationType: 'wallet', destinationDetails: { walletEmail: 'x@fail.test' } }, 'Payout rejected: the wallet account cannot receive funds'],
    ['an ERC20 address ending dead', { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: `0x${'1'.repeat(36)}dead` } }, 'Payout rejected: the destination address cannot receive funds'],
    ['a TRC20 address ending DEAD', { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: `T${'a'.repeat(29)}DEAD` } }, 'Payout rejected: the destination address cannot receive funds'],
  ])('fails a payout to %s: failureReason, money back to available, withdrawal.failed', async (_name, destination, reason) => {
    const biz = await fundedBusiness(10_000, destination);
    const w = await withdrawAndSettle(biz, { amount: 25, ...destination });
    expect(w.status).toBe('failed');
    expect(w.failureReason).toBe(reason);
    expect(w.completedAt).toBeNull();
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 10_000, pendingWithdrawal: 0 });
    const events = await eventsFor(w.id);
    expect(events.map((e) => e.type)).toEqual(['withdrawal.failed']);
    expect(events[0].payload).toMatchObject({ withdrawalId: w.id, amount: 2_500, status: 'failed', failureReason: reason });
    const refused = await cancel(biz, w.id);
    expect(refused.body.error.message).toBe('Cannot cancel withdrawal in failed status');
  });
});
