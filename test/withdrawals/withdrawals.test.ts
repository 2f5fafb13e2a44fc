import { createWithdrawalActivities } from '../../activities/withdrawals.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { eventually, paidSession } from '../support/payments.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { addCryptoMethod, addWalletMethod, balanceOf, creditAvailable, entrySums, testMode, WALLET_EMAIL } from '../support/seed.js';
import { paymentProcessor } from '../../src/main/payment-processor.js';

/** The default 10-minute processing delay: every withdrawal here stays `pending` unless a test moves it. */
const stack = useStack();

const ERC20 = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRC20 = 'TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW';
const wallet = (amount: number, walletEmail = WALLET_EMAIL) => ({
  amount,
  destinationType: 'wallet',
  destinationDetails: { walletEmail },
});

/** A business with a wallet method (`WALLET_EMAIL`) and `cents` available in test mode. */
async function fundedBusiness(cents: number): Promise<TestBusiness> {
  const biz = await stack.business();
  await addWalletMethod(stack.orm, biz.id);
  if (cents) await creditAvailable(stack.orm, testMode(biz.id), cents);
  return biz;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const withdraw = (biz: TestBusiness, body: unknown) => stack.http.post('/api/withdrawals', body, { key: biz.testKey });
const cancel = (biz: TestBusiness, id: string) => stack.http.post(`/api/withdrawals/${id}/cancel`, undefined, { key: biz.testKey });

describe('POST /api/withdrawals', () => {
  it('creates a pending withdrawal, moving the amount from available to pending', async () => {
    const biz = await fundedBusiness(10_000);
    const res = await withdraw(biz, { ...wallet(25.1), notes: 'weekly payout' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const w = res.body.data;
    expect(Object.keys(w).sort()).toEqual(['amountInCents', 'destinationDetails', 'destinationType', 'id', 'requestedAt', 'status']);
    expect(w.id).toMatch(/^wd_[0-9a-f]{32}$/);
    expect(w.amountInCents).toBe(2510);
    expect(w.status).toBe('pending');
    expect(w.destinationType).toBe('wallet');
    expect(w.destinationDetails).toBe('{"walletEmail":"payouts@merchant.example"}');
    expect(new Date(w.requestedAt).toISOString()).toBe(w.requestedAt);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 7490, pendingWithdrawal: 2510 });
  });

  it('returns a crypto destination as JSON text with only its own keys, and refuses another type\'s key by name', async () => {
    const biz = await fundedBusiness(10_000);
    await addCryptoMethod(stack.orm, biz.id, { cryptoCoin: 'USDC', cryptoNetwork: 'TRC20', cryptoAddress: TRC20 });
    const details = { cryptoCoin: 'USDC', cryptoNetwork: 'TRC20', cryptoAddress: TRC20 };
    const mixed = await withdraw(biz, { amount: 10, destinationType: 'crypto', destinationDetails: { ...details, walletEmail: 'a@x.example' } });
    expect([mixed.status, mixed.body.error.errors]).toEqual([400, [{ path: ['destinationDetails', 'walletEmail'], message: 'Unknown field: walletEmail' }]]);
    const res = await withdraw(biz, { amount: 10, destinationType: 'crypto', destinationDetails: details });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.data.destinationDetails)).toEqual(details);
  });

  it('starts the withdrawal workflow, searchable by its status', async () => {
    const biz = await fundedBusiness(1_000);
    const res = await withdraw(biz, wallet(1));
    const handle = stack.temporal.workflow.getHandle(`withdrawal-${res.body.data.id}`);
    const described = await eventually('the withdrawal workflow to be started', () => handle.describe().catch(() => undefined));
    expect(described.status.name).toBe('RUNNING');
    expect(described.searchAttributes).toMatchObject({ PaymentStatus: ['pending'], BusinessId: [biz.id], AmountInCents: [100] });
    expect(await described.staticSummary()).toBe(`Withdrawal ${res.body.data.id} of $1.00 to wallet`);
    expect((await handle.query<{ status: string }>('status')).status).toBe('pending');
  });

  it('refuses an amount above the available balance: "Insufficient available balance", the available amount in its entry', async () => {
    const biz = await fundedBusiness(1_000);
    const res = await withdraw(biz, wallet(10.01));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'validation_error',
      message: 'Insufficient available balance',
      requestId: expect.any(String),
      errors: [{ path: ['amount'], message: 'Available balance is 10.00 USD (1000 cents)' }],
    });
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 1_000, pendingWithdrawal: 0 });
  });

  it('counts only available money: reserved funds cannot be withdrawn', async () => {
    // A real payment: 4048 to available, 450 held in a reserve.
    const biz = await fundedBusiness(0);
    await paidSession(stack, biz);
    const res = await withdraw(biz, wallet(40.49));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Insufficient available balance');
    expect((await withdraw(biz, wallet(40.48))).status).toBe(201);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 0, reserved: 450, pendingWithdrawal: 4_048 });
  });

  it('says an amount given as text must be a number of dollars, before anything else is checked', async () => {
    const biz = await fundedBusiness(0);
    const message = 'Amount must be a number of dollars, such as 125.50';
    for (const amount of ['10.00', null]) {
      const res = await withdraw(biz, wallet(amount as unknown as number));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', message, errors: [{ path: ['amount'], message }] });
    }
  });

  it('refuses a business with no withdrawal method: "Withdrawal method not found"', async () => {
    const biz = await stack.business();
    await creditAvailable(stack.orm, testMode(biz.id), 1_000);
    const res = await withdraw(biz, wallet(1));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Withdrawal method not found' });
  });

  it.each([
    ['a wallet e-mail that is not an e-mail', wallet(1, 'not-an-email'), ['destinationDetails', 'walletEmail']],
    ['a missing wallet e-mail', { amount: 1, destinationType: 'wallet', destinationDetails: {} }, ['destinationDetails', 'walletEmail']],
    ['an unknown coin', { amount: 1, destinationType: 'crypto', destinationDetails: { cryptoCoin: 'BTC', cryptoNetwork: 'ERC20', cryptoAddress: ERC20 } }, ['destinationDetails', 'cryptoCoin']],
    ['an unknown network', { amount: 1, destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'BEP20', cryptoAddress: ERC20 } }, ['destinationDetails', 'cryptoNetwork']],
    ['an ERC20 address that is not 0x + 40 hex', { amount: 1, destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'ERC20', cryptoAddress: '0x1234' } }, ['destinationDetails', 'cryptoAddress']],
    ['a TRC20 address given an ERC20 address', { amount: 1, destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: ERC20 } }, ['destinationDetails', 'cryptoAddress']],
    ['a TRC20 address with a non-base58 character', { amount: 1, destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: `${TRC20.slice(0, -1)}0` } }, ['destinationDetails', 'cryptoAddress']],
    ['an unknown destination type', { amount: 1, destinationType: 'bank', destinationDetails: {} }, ['destinationType']],
    ['no destination details', { amount: 1, destinationType: 'wallet' }, ['destinationDetails']],
    ['a zero amount', wallet(0), ['amount']],
    ['a negative amount', wallet(-5), ['amount']],
    ['more than two decimals', wallet(1.005), ['amount']],
  ])('rejects %s with a validation error naming the field', async (_name, body, path) => {
    const biz = await fundedBusiness(100_000);
    const res = await withdraw(biz, body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(res.body.error.message).toBe('Validation failed');
    expect(res.body.error.errors.map((e: { path: unknown }) => e.path)).toContainEqual(path);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 100_000, pendingWithdrawal: 0 });
  });

  it('never overdraws under 50 concurrent withdrawals: those that fit succeed, the rest are refused', async () => {
    const biz = await fundedBusiness(10_000); // $100.00; 50 × $3.00 = $150.00
    const results = await Promise.all(Array.from({ length: 50 }, () => withdraw(biz, wallet(3))));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(33);
    expect(refused).toHaveLength(17);
    for (const r of refused) expect(r.body.error).toMatchObject({ type: 'validation_error', message: 'Insufficient available balance' });
    const owner = testMode(biz.id);
    const balance = await balanceOf(stack.orm, owner);
    expect(balance).toMatchObject({ available: 100, pendingWithdrawal: 9_900 });
    const sums = await entrySums(stack.orm, owner);
    expect(sums.available).toBe(balance.available);
    expect(sums.pending_withdrawal).toBe(balance.pendingWithdrawal);
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  });
});

describe('POST /api/withdrawals/:id/cancel', () => {
  it('cancels a pending withdrawal and returns its money to available at once', async () => {
    const biz = await fundedBusiness(5_000);
    const { body } = await withdraw(biz, wallet(20));
    const res = await cancel(biz, body.data.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: body.data.id, status: 'cancelled', amountInCents: 2_000 });
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 5_000, pendingWithdrawal: 0 });
    const read = await stack.http.get(`/api/withdrawals/${body.data.id}`, { key: biz.testKey });
    expect(read.body.data.status).toBe('cancelled');
  });

  it('ends the workflow when the cancel is signalled', async () => {
    const biz = await fundedBusiness(5_000);
    const { body } = await withdraw(biz, wallet(1));
    const handle = stack.temporal.workflow.getHandle(`withdrawal-${body.data.id}`);
    await eventually('the withdrawal workflow to be started', () => handle.describe().catch(() => undefined));
    await cancel(biz, body.data.id);
    expect(await handle.result()).toBe('cancelled');
  });

  it('refuses a second cancel: "Cannot cancel withdrawal in cancelled status"', async () => {
    const biz = await fundedBusiness(5_000);
    const { body } = await withdraw(biz, wallet(20));
    await cancel(biz, body.data.id);
    const res = await cancel(biz, body.data.id);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Cannot cancel withdrawal in cancelled status' });
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 5_000, pendingWithdrawal: 0 });
  });

  it('refuses a withdrawal already processing: "Cannot cancel withdrawal in processing status"', async () => {
    const biz = await fundedBusiness(5_000);
    const { body } = await withdraw(biz, wallet(20));
    await createWithdrawalActivities({ orm: stack.orm, processor: paymentProcessor(stack.config, { orm: stack.orm }) }).startWithdrawalProcessing(body.data.id);
    const res = await cancel(biz, body.data.id);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Cannot cancel withdrawal in processing status');
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 3_000, pendingWithdrawal: 2_000 });
  });

  it('has exactly one winner when a cancel races the move to processing', async () => {
    const biz = await fundedBusiness(100_000);
    const activities = createWithdrawalActivities({ orm: stack.orm, processor: paymentProcessor(stack.config, { orm: stack.orm }) });
    const winners = { cancel: 0, processing: 0 };
    for (let round = 0; round < 20; round++) {
      const { body } = await withdraw(biz, wallet(1));
      // Staggered starts, so each side sometimes gets there first.
      const [cancelled, started] = await Promise.all([
        cancel(biz, body.data.id),
        sleep((round % 5) * 2).then(() => activities.startWithdrawalProcessing(body.data.id)),
      ]);
      if (cancelled.status === 200) {
        winners.cancel++;
        expect(started.status).toBe('cancelled');
      } else {
        winners.processing++;
        expect(cancelled.body.error.message).toBe('Cannot cancel withdrawal in processing status');
        expect(started.status).toBe('processing');
      }
    }
    expect(winners.cancel + winners.processing).toBe(20);
    // Every cancelled dollar is back in available; every processing one is still pending.
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({
      available: 100_000 - winners.processing * 100,
      pendingWithdrawal: winners.processing * 100,
    });
  });

  it('answers 404 "Withdrawal not found" for an unknown id or another business\'s withdrawal', async () => {
    const owner = await fundedBusiness(5_000);
    const other = await fundedBusiness(0);
    const { body } = await withdraw(owner, wallet(1));
    for (const res of [await cancel(other, body.data.id), await cancel(owner, 'wd_unknown')]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Withdrawal not found' });
    }
  });
});

describe('GET /api/withdrawals', () => {
  it('lists the business\'s withdrawals newest first with data.items and data.meta, filtered by status', async () => {
    const biz = await fundedBusiness(10_000);
    const ids: string[] = [];
    for (const amount of [1, 2, 3]) ids.push((await withdraw(biz, wallet(amount))).body.data.id);
    await cancel(biz, ids[0]);
    const page = await stack.http.get('/api/withdrawals?limit=2', { key: biz.testKey });
    expect(page.status).toBe(200);
    expect(page.body.data.items.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(page.body.data.items[0]).sort()).toEqual(['amountInCents', 'completedAt', 'destinationType', 'id', 'requestedAt', 'status']);
    expect(page.body.data.meta).toEqual({ total: 3, page: 1, limit: 2, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
    const second = await stack.http.get('/api/withdrawals?limit=2&page=2', { key: biz.testKey });
    expect(second.body.data.items.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
    expect(second.body.data.meta).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const cancelled = await stack.http.get('/api/withdrawals?status=cancelled', { key: biz.testKey });
    expect(cancelled.body.data.items.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
  });

  it('rejects an unknown status filter and a limit above 100', async () => {
    const biz = await fundedBusiness(0);
    for (const [query, path] of [['status=done', 'status'], ['limit=101', 'limit']]) {
      const res = await stack.http.get(`/api/withdrawals?${query}`, { key: biz.testKey });
      expect(res.status).toBe(400);
      expect(res.body.error.errors[0].path).toEqual([path]);
    }
  });

  it('says a page that is no integer is not one', async () => {
    const biz = await fundedBusiness(0);
    const res = await stack.http.get('/api/withdrawals?page=second', { key: biz.testKey });
    expect(res.status).toBe(400);
    const message = 'Page must be an integer, such as 1';
    expect(res.body.error).toMatchObject({ type: 'validation_error', message, errors: [{ path: ['page'], message }] });
  });

  it('reads one withdrawal with its destination, and 404 "Withdrawal not found" for an unknown id', async () => {
    const biz = await fundedBusiness(1_000);
    const { body } = await withdraw(biz, wallet(1));
    const res = await stack.http.get(`/api/withdrawals/${body.data.id}`, { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: body.data.id, status: 'pending', completedAt: null, destinationDetails: body.data.destinationDetails });
    expect(res.body.data).not.toHaveProperty('failureReason');
    const missing = await stack.http.get('/api/withdrawals/wd_0000', { key: biz.testKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found', message: 'Withdrawal not found' });
  });
});
