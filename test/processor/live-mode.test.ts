import { jest } from '@jest/globals';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config.js';
import { DomainError } from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/errors.js';
import { paymentProcessor } from '../../src/main/payment-processor.js';
import { LIVE_REFUSED_MESSAGE, livePaymentsNotice, refusingLive, requireLivePayments } from '../../src/modules/processor/live-mode.rules.js';
import type { PaymentProcessor } from '../../src/modules/processor/index.js';

describe('NODE_ENV and live payments in the configuration', () => {
  it('defaults NODE_ENV to development, or to production where the entry point says so; a set NODE_ENV wins', () => {
    expect(loadConfig({}).env).toBe('development');
    expect(loadConfig({}, 'production').env).toBe('production');
    expect(loadConfig({ NODE_ENV: 'test' }, 'production').env).toBe('test');
    expect(loadConfig({ NODE_ENV: '' }, 'production').env).toBe('production'); // empty counts as unset
  });

  it.each([
    [{}, 'development', 'simulated'],
    [{ NODE_ENV: 'test' }, 'development', 'simulated'],
    [{}, 'production', 'refused'],
    [{ NODE_ENV: 'production' }, 'development', 'refused'],
    [{ NODE_ENV: 'production', ALLOW_SIMULATED_LIVE_PAYMENTS: 'true' }, 'development', 'simulated'],
    [{ ALLOW_SIMULATED_LIVE_PAYMENTS: 'false' }, 'production', 'refused'],
    [{ NODE_ENV: 'test', ALLOW_SIMULATED_LIVE_PAYMENTS: 'false' }, 'development', 'refused'],
  ] as const)('%j with default %s: live payments %s', (env, defaultEnv, expected) => {
    expect(loadConfig(env, defaultEnv).livePayments).toBe(expected);
  });

  it('refuses a setting that is not a boolean', () => {
    expect(() => loadConfig({ ALLOW_SIMULATED_LIVE_PAYMENTS: 'yes' })).toThrow(/^Invalid configuration: ALLOW_SIMULATED_LIVE_PAYMENTS: /);
  });
});

describe('what the banner and logs say', () => {
  const none = { acquirer: null, liveWithdrawals: 'refused' } as const;
  it.each([
    [{ ...none, env: 'production', livePayments: 'refused' }, /^live payments: refused, no acquirer configured/],
    [{ ...none, env: 'production', livePayments: 'simulated' }, /^live payments: simulated — ALLOW_SIMULATED_LIVE_PAYMENTS=true/],
    [{ ...none, env: 'development', livePayments: 'simulated' }, /^live payments: simulated — NODE_ENV=development/],
  ] as const)('%j', (config, line) => {
    expect(livePaymentsNotice(config)).toMatch(line);
  });

  it('warns that the simulator serves live keys only when it does', () => {
    const log = { warn: jest.fn() } as unknown as Logger & { warn: jest.Mock };
    paymentProcessor({ ...none, env: 'production', livePayments: 'refused' }, { log });
    expect(log.warn).not.toHaveBeenCalled();
    paymentProcessor({ ...none, env: 'production', livePayments: 'simulated' }, { log });
    expect(log.warn).toHaveBeenCalledTimes(1);
  });
});

describe('the API edge', () => {
  it('refuses a live money move when live payments are refused: 403 permission_error', () => {
    let thrown: unknown;
    try {
      requireLivePayments('refused', true);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(toApiError(thrown)).toMatchObject({ status: 403, type: 'permission_error', message: LIVE_REFUSED_MESSAGE });
    expect(() => requireLivePayments('refused', false)).not.toThrow();
    expect(() => requireLivePayments('simulated', true)).not.toThrow();
  });
});

describe("the worker's processor with live payments refused", () => {
  const calls: string[] = [];
  const inner: PaymentProcessor = {
    name: 'inner',
    tokenize: async () => ({ token: 'tok', brand: 'visa', last4: '4242' }),
    prepareCharge: async () => (calls.push('prepareCharge'), { status: 'prepared', reference: null }),
    charge: async () => (calls.push('charge'), { status: 'succeeded', chargeId: 'ch_1' }),
    retrieveCharge: async () => (calls.push('retrieveCharge'), { status: 'succeeded', chargeId: 'ch_1' }),
    payout: async () => (calls.push('payout'), { status: 'paid', processorTransactionId: 'po_1' }),
    refund: async () => (calls.push('refund'), { status: 'succeeded', refundId: 're_1' }),
    disputeNotice: async () => (calls.push('disputeNotice'), null),
    reviewDisputeEvidence: async () => (calls.push('reviewDisputeEvidence'), 'won'),
    submitDisputeEvidence: async () => void calls.push('submitDisputeEvidence'),
    acceptDispute: async () => void calls.push('acceptDispute'),
  };
  const guarded = refusingLive(inner);
  const wallet = { destinationType: 'wallet' as const, destinationDetails: { walletEmail: 'a@b.example' } };
  const charge = { token: 'tok', amountInCents: 100, currency: 'USD' as const, idempotencyKey: 'k', reference: null };

  beforeEach(() => calls.splice(0));

  it('declines every live move without passing it on', async () => {
    expect(await guarded.prepareCharge({ ...charge, livemode: true })).toEqual({ status: 'prepared', reference: null });
    expect(await guarded.charge({ ...charge, livemode: true })).toEqual({ status: 'declined', code: 'processing_error', message: LIVE_REFUSED_MESSAGE });
    expect(await guarded.payout({ idempotencyKey: 'wd', amountInCents: 1, destination: wallet, livemode: true })).toEqual({ status: 'declined', message: LIVE_REFUSED_MESSAGE });
    expect(await guarded.refund({ chargeId: 'ch', amountInCents: 1, idempotencyKey: 're', livemode: true })).toEqual({ status: 'declined', message: LIVE_REFUSED_MESSAGE });
    expect(calls).toEqual([]);
  });

  it("never lets the simulator's test phrases decide a live dispute: its evidence waits for the acquirer's decision", async () => {
    const review = { disputeId: 'dsp_1', evidence: { uncategorizedText: 'winning_evidence' } };
    expect(await guarded.reviewDisputeEvidence({ ...review, livemode: true })).toBeNull();
    expect(calls).toEqual([]);
    expect(await guarded.reviewDisputeEvidence({ ...review, livemode: false })).toBe('won');
    expect(calls).toEqual(['reviewDisputeEvidence']);
  });

  it('decides every method of the port, none passed through by default', () => {
    const methods = Object.keys(inner).filter((key) => key !== 'name').sort();
    expect(Object.keys(guarded).filter((key) => key !== 'name').sort()).toEqual(methods);
    for (const method of methods) expect(guarded[method as keyof PaymentProcessor]).not.toBe(inner[method as keyof PaymentProcessor]);
  });

  it('still looks up a live charge, which moves no money: one made before live payments were refused is found, not failed', async () => {
    expect(await guarded.retrieveCharge({ idempotencyKey: 'k', livemode: true, reference: null })).toEqual({ status: 'succeeded', chargeId: 'ch_1' });
    expect(calls).toEqual(['retrieveCharge']);
  });

  it('passes test mode through unchanged', async () => {
    expect(await guarded.charge({ ...charge, livemode: false })).toEqual({ status: 'succeeded', chargeId: 'ch_1' });
    expect(await guarded.retrieveCharge({ idempotencyKey: 'k', livemode: false, reference: null })).toEqual({ status: 'succeeded', chargeId: 'ch_1' });
    await guarded.payout({ idempotencyKey: 'wd', amountInCents: 1, destination: wallet, livemode: false });
    await guarded.refund({ chargeId: 'ch', amountInCents: 1, idempotencyKey: 're', livemode: false });
    expect(calls).toEqual(['charge', 'retrieveCharge', 'payout', 'refund']);
  });
});
