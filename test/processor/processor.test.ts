import { cardBrand, normaliseCardNumber, parseCard, passesLuhn } from '../../src/modules/processor/card.rules.js';
import { ProcessorUnavailableError } from '../../src/modules/processor/index.js';
import { memoryChargeBook } from '../../src/modules/processor/simulator/charge-book.store.js';
import { CHARGE_TIMEOUT_MESSAGE, chargeKind, createSimulatorProcessor, simulatorWithBook, tokenBehaviour } from '../../src/modules/processor/simulator/charges.simulator.js';

import { parsedCard as card } from '../support/payments.js';
const simulator = createSimulatorProcessor();
// A key names one charge (the simulator answers a reused key with its first outcome): a fresh one per call.
let keys = 0;
const charge = async (number: string, idempotencyKey = `sess-${++keys}`) => {
  const { token } = await simulator.tokenize(card(number), false);
  return simulator.charge({ token, amountInCents: 1000, currency: 'USD', idempotencyKey, livemode: false, reference: null });
};

describe('card rules', () => {
  it.each(['4242424242424242', '4000000000000002', '5555555555554444', '378282246310005', '6011111111111117'])(
    'accepts the Luhn-valid %s',
    (n) => expect(passesLuhn(n)).toBe(true),
  );
  it.each(['4242424242424241', '1234567812345678', '42424242x4242424', ''])('rejects %p', (n) => expect(passesLuhn(n)).toBe(false));

  it.each([
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['3056930009020004', 'diners'],
    ['3566002020360505', 'jcb'],
    ['6200000000000005', 'unionpay'],
    ['9999999999999995', 'unknown'],
  ])('reads the brand of %s as %s', (n, brand) => expect(cardBrand(n)).toBe(brand));

  it('parses a card once: a Luhn-valid number with its brand and last four, none for a number that fails', () => {
    const details = { number: '5555555555554444', expMonth: 12, expYear: 2099, cvc: '123' };
    expect(parseCard(details)).toEqual({ ...details, brand: 'mastercard', last4: '4444' });
    expect(parseCard({ ...details, number: '4242424242424241' })).toBeNull();
  });

  it('drops the spaces and dashes people type', () => {
    expect(normaliseCardNumber(' 4242 4242-4242 4242 ')).toBe('4242424242424242');
  });
});

describe('simulator processor', () => {
  it('tokenises a card into a token without its number, with brand and last four', async () => {
    const result = await simulator.tokenize(card('4242424242424242'), false);
    expect(result.brand).toBe('visa');
    expect(result.last4).toBe('4242');
    expect(result.token).toMatch(/^tok_sim_success_[0-9a-f]{24}$/);
    expect(result.token).not.toContain('424242');
  });


  it('charges 4242… and any other Luhn-valid number', async () => {
    expect(await charge('4242424242424242')).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^ch_sim_ok_/) });
    expect((await charge('5555555555554444')).status).toBe('succeeded');
  });

  it('answers a retried charge with the first charge id (idempotency key)', async () => {
    const first = await charge('4242424242424242', 'sess-a');
    expect(await charge('4242424242424242', 'sess-a')).toEqual(first);
    expect(await charge('4242424242424242', 'sess-b')).not.toEqual(first);
  });

  it.each([
    ['4000000000000002', 'card_declined', 'Your card was declined.'],
    ['4000000000009995', 'insufficient_funds', 'Your card has insufficient funds.'],
    ['4000000000000069', 'expired_card', 'Your card has expired.'],
  ])('declines %s as %s', async (n, code, message) => {
    expect(await charge(n)).toEqual({ status: 'declined', code, message });
  });

  it('fails 4000000000000119 transiently, charging nothing: a lookup finds no charge', async () => {
    await expect(charge('4000000000000119', 'sess-0119')).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-0119', livemode: false, reference: null })).toEqual({ status: 'not_found' });
  });

  it('times 4000000000000408 out on every call, though it charged once: a lookup finds the charge', async () => {
    for (let i = 0; i < 3; i++) {
      await expect(charge('4000000000000408', 'sess-0408')).rejects.toEqual(new ProcessorUnavailableError(CHARGE_TIMEOUT_MESSAGE));
    }
    const found = await simulator.retrieveCharge({ idempotencyKey: 'sess-0408', livemode: false, reference: null });
    expect(found).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^ch_sim_ok_[0-9a-f]{24}$/) });
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-0408', livemode: false, reference: null })).toEqual(found);
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-0408', livemode: true, reference: null })).toEqual({ status: 'not_found' });
  });

  it('answers a lookup of a charge that did answer with that answer, a decline included', async () => {
    const paid = await charge('4242424242424242', 'sess-paid');
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-paid', livemode: false, reference: null })).toEqual(paid);
    await charge('4000000000000002', 'sess-declined');
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-declined', livemode: false, reference: null })).toEqual({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
  });

  it('refuses a charge that arrives after a lookup found none, so a session failed on that answer was never charged', async () => {
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-late', livemode: false, reference: null })).toEqual({ status: 'not_found' });
    expect(await charge('4242424242424242', 'sess-late')).toEqual({
      status: 'declined',
      code: 'processing_error',
      message: 'An error occurred while processing your card. Try again in a little bit.',
    });
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-late', livemode: false, reference: null })).toEqual({ status: 'not_found' });
  });

  it('records in the book it is bound to, calling the shared simulator', async () => {
    const book = memoryChargeBook();
    const bound = simulatorWithBook(book, simulator);
    const { token } = await simulator.tokenize(card('4242424242424242'), false);
    const outcome = await bound.charge({ token, amountInCents: 1000, currency: 'USD', idempotencyKey: 'sess-bound', livemode: false, reference: null });
    expect(await book.claim('sess-bound', false, { status: 'not_found' })).toEqual(outcome);
    expect(await bound.retrieveCharge({ idempotencyKey: 'sess-bound', livemode: false, reference: null })).toEqual(outcome);
    expect(await simulator.retrieveCharge({ idempotencyKey: 'sess-bound', livemode: false, reference: null })).toEqual({ status: 'not_found' });
  });

  it('pays 4000000000005126 with a charge id that marks its refund to fail', async () => {
    const outcome = await charge('4000000000005126');
    expect(outcome.status).toBe('succeeded');
    expect(outcome.status === 'succeeded' && chargeKind(outcome.chargeId)).toBe('refund_declined');
  });

  it('declines a token it never issued', async () => {
    expect(tokenBehaviour('tok_visa')).toBeNull();
    const outcome = await simulator.charge({ token: 'tok_visa', amountInCents: 1, currency: 'USD', idempotencyKey: 'x', livemode: false, reference: null });
    expect(outcome).toEqual({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
  });
});

describe("the simulator's record of its refunds and payouts", () => {
  const wallet = { destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@merchant.example' } } as const;
  const crypto = { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE' } } as const;

  it('records a refund under its key once, and answers a retry with the first outcome', async () => {
    const book = memoryChargeBook();
    const bound = simulatorWithBook(book, simulator);
    const request = { chargeId: 'ch_sim_ok_000000000000000000000000', amountInCents: 500, idempotencyKey: 'ref-1', livemode: false };
    const first = await bound.refund(request);
    expect(first).toEqual({ status: 'succeeded', refundId: expect.stringMatching(/^re_sim_/) });
    // A second call under the key (a worker's retry), even with another amount, moves nothing new.
    expect(await bound.refund({ ...request, amountInCents: 900 })).toEqual(first);
    expect(await book.claimMove({ kind: 'refund', idempotencyKey: 'ref-1', livemode: false, amountInCents: 1, chargeId: 'x', status: 'declined', reference: null, message: 'x' })).toEqual({
      kind: 'refund', idempotencyKey: 'ref-1', livemode: false, amountInCents: 500, chargeId: request.chargeId, status: 'succeeded', reference: (first as { refundId: string }).refundId, message: null,
    });
  });

  it('records a declined refund as declined', async () => {
    const bound = simulatorWithBook(memoryChargeBook(), simulator);
    const request = { chargeId: 'ch_sim_refund_declined_000000000000000000000000', amountInCents: 500, idempotencyKey: 'ref-2', livemode: false };
    expect(await bound.refund(request)).toEqual({ status: 'declined', message: 'Refund declined by the card issuer' });
  });

  it('records a payout under its key once, answered as the port names it for its destination', async () => {
    const book = memoryChargeBook();
    const bound = simulatorWithBook(book, simulator);
    const toWallet = await bound.payout({ idempotencyKey: 'wd-1', amountInCents: 700, destination: wallet, livemode: false });
    expect(toWallet).toEqual({ status: 'paid', processorTransactionId: expect.stringMatching(/^po_sim_/) });
    expect(await bound.payout({ idempotencyKey: 'wd-1', amountInCents: 700, destination: wallet, livemode: false })).toEqual(toWallet);
    expect(await bound.payout({ idempotencyKey: 'wd-2', amountInCents: 700, destination: crypto, livemode: false })).toEqual({ status: 'paid', transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const declined = { destinationType: 'wallet', destinationDetails: { walletEmail: 'x@fail.test' } } as const;
    expect(await bound.payout({ idempotencyKey: 'wd-3', amountInCents: 700, destination: declined, livemode: false })).toEqual({ status: 'declined', message: expect.stringMatching(/^Payout rejected/) });
  });
});
