import { cardBrand, normaliseCardNumber, passesLuhn } from '../../src/modules/processor/card.js';
import { InvalidCardError, ProcessorUnavailableError } from '../../src/modules/processor/processor.js';
import { chargeKind, createSimulatorProcessor, tokenBehaviour } from '../../src/modules/processor/simulator.js';

const card = (number: string) => ({ number, expMonth: 12, expYear: 2099, cvc: '123' });
const simulator = createSimulatorProcessor();
const charge = async (number: string, idempotencyKey = 'sess-1') => {
  const { token } = await simulator.tokenize(card(number));
  return simulator.charge({ token, amountInCents: 1000, currency: 'USD', idempotencyKey, livemode: false });
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

  it('drops the spaces and dashes people type', () => {
    expect(normaliseCardNumber(' 4242 4242-4242 4242 ')).toBe('4242424242424242');
  });
});

describe('simulator processor', () => {
  it('tokenises a card into a token without its number, with brand and last four', async () => {
    const result = await simulator.tokenize(card('4242424242424242'));
    expect(result.brand).toBe('visa');
    expect(result.last4).toBe('4242');
    expect(result.token).toMatch(/^tok_sim_success_[0-9a-f]{24}$/);
    expect(result.token).not.toContain('424242');
  });

  it('refuses a number that fails Luhn, naming the field', async () => {
    await expect(simulator.tokenize(card('4242424242424241'))).rejects.toEqual(new InvalidCardError('number', 'Card number is invalid'));
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

  it('fails 4000000000000119 transiently, for the workflow to retry', async () => {
    await expect(charge('4000000000000119')).rejects.toBeInstanceOf(ProcessorUnavailableError);
  });

  it('pays 4000000000005126 with a charge id that marks its refund to fail', async () => {
    const outcome = await charge('4000000000005126');
    expect(outcome.status).toBe('succeeded');
    expect(outcome.status === 'succeeded' && chargeKind(outcome.chargeId)).toBe('refund_declined');
  });

  it('declines a token it never issued', async () => {
    expect(tokenBehaviour('tok_visa')).toBeNull();
    const outcome = await simulator.charge({ token: 'tok_visa', amountInCents: 1, currency: 'USD', idempotencyKey: 'x', livemode: false });
    expect(outcome).toEqual({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
  });
});
