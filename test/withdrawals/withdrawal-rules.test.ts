import fc from 'fast-check';
import { simulatedPayoutDecline } from '../../src/modules/processor/simulator/payouts.simulator.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { cryptoAddressProblem, destinationKey, destinationText, matchingDestination, parseDestination, type Destination } from '../../src/modules/withdrawals/destination.rules.js';
import { createWithdrawalInput } from '../../src/modules/withdrawals/withdrawal.schemas.js';
import { formatWait, processorBackoffMs } from '../../workflows/in-flight.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdefABCDEF';
const chars = (alphabet: string, length: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length }).map((a) => a.join(''));

describe('crypto address rules', () => {
  it('accepts every 0x + 40 hex address on ERC20 and every T + 33 base58 address on TRC20', () => {
    fc.assert(fc.property(chars(HEX, 40), (hex) => cryptoAddressProblem('ERC20', `0x${hex}`) === null));
    fc.assert(fc.property(chars(BASE58, 33), (body) => cryptoAddressProblem('TRC20', `T${body}`) === null));
  });

  it.each([
    ['ERC20', '0x' + 'a'.repeat(39)],
    ['ERC20', '0x' + 'g'.repeat(40)],
    ['ERC20', 'a'.repeat(42)],
    ['TRC20', 'T' + 'a'.repeat(32)],
    ['TRC20', 'T' + '0'.repeat(33)],
    ['TRC20', 'A' + 'a'.repeat(33)],
  ] as const)('refuses %s address %s', (network, address) => {
    expect(cryptoAddressProblem(network, address)).not.toBeNull();
  });
});

describe('withdrawal amount', () => {
  it('turns any dollar amount with at most two decimals into exactly its cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999_999 }), (cents) => {
        const parsed = createWithdrawalInput.parse({
          amount: Number((cents / 100).toFixed(2)),
          destinationType: 'wallet',
          destinationDetails: { walletEmail: 'a@b.example' },
        });
        return parsed.amount === cents;
      }),
    );
  });
});

describe('destination text', () => {
  it('reads back what it wrote, with keys in a fixed order', () => {
    const crypto: Destination = {
      destinationType: 'crypto',
      destinationDetails: { cryptoAddress: `0x${'a'.repeat(40)}`, cryptoNetwork: 'ERC20', cryptoCoin: 'USDT' },
    };
    const text = destinationText(crypto);
    expect(text).toBe(`{"cryptoCoin":"USDT","cryptoNetwork":"ERC20","cryptoAddress":"0x${'a'.repeat(40)}"}`);
    expect(parseDestination('crypto', text)).toEqual(crypto);
  });
});

describe('matching a withdrawal to a registered destination', () => {
  const wallet = (walletEmail: string): Destination => ({ destinationType: 'wallet', destinationDetails: { walletEmail } });
  const crypto = (cryptoCoin: string, cryptoNetwork: 'ERC20' | 'TRC20', cryptoAddress: string): Destination => ({
    destinationType: 'crypto',
    destinationDetails: { cryptoCoin: cryptoCoin as 'USDT', cryptoNetwork, cryptoAddress },
  });
  const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
  const TRON = 'TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW';
  const registered = [wallet('Payouts@Merchant.example'), crypto('USDC', 'ERC20', EVM), crypto('USDT', 'TRC20', TRON)];

  it.each([
    ['the same e-mail', wallet('Payouts@Merchant.example'), 0],
    ['the e-mail in another case', wallet('PAYOUTS@merchant.EXAMPLE'), 0],
    ['the EVM address in lower case', crypto('USDC', 'ERC20', EVM.toLowerCase()), 1],
    ['the EVM address in upper case after 0x', crypto('USDC', 'ERC20', `0x${EVM.slice(2).toUpperCase()}`), 1],
    ['the TRON address as registered', crypto('USDT', 'TRC20', TRON), 2],
  ])('matches %s', (_name, requested, index) => {
    expect(matchingDestination(registered, requested)).toBe(registered[index]);
  });

  it.each([
    ['another e-mail', wallet('payouts@merchant.example.org')],
    ['a registered address with another coin', crypto('USDT', 'ERC20', EVM)],
    ['a registered address with another coin in other case', crypto('usdc', 'ERC20', EVM)],
    ['a registered coin and address on another network', crypto('USDC', 'TRC20', EVM)],
    ['the TRON address with one letter in another case', crypto('USDT', 'TRC20', TRON.replace('n', 'N'))],
    ['the TRON address in lower case', crypto('USDT', 'TRC20', TRON.toLowerCase())],
    ['another EVM address', crypto('USDC', 'ERC20', `${EVM.slice(0, -1)}8`)],
  ])('does not match %s', (_name, requested) => {
    expect(matchingDestination(registered, requested)).toBeUndefined();
  });

  it('gives any spelling of an e-mail or EVM address one key, and different destinations different keys', () => {
    const cased = fc.tuple(chars(HEX, 40), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }));
    fc.assert(
      fc.property(cased, ([hex, upper]) => {
        const respelled = [...hex].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');
        return destinationKey(crypto('USDT', 'ERC20', `0x${hex}`)) === destinationKey(crypto('USDT', 'ERC20', `0x${respelled}`));
      }),
    );
    expect(destinationKey(wallet('a@b.example'))).not.toBe(destinationKey(crypto('USDT', 'ERC20', 'a@b.example')));
    expect(matchingDestination([], wallet('a@b.example'))).toBeUndefined();
  });
});

describe('the payout simulator', () => {
  const wallet = (walletEmail: string): Destination => ({ destinationType: 'wallet', destinationDetails: { walletEmail } });
  const crypto = (cryptoNetwork: 'ERC20' | 'TRC20', cryptoAddress: string): Destination => ({
    destinationType: 'crypto',
    destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork, cryptoAddress },
  });

  it.each([
    [wallet('a@fail.test'), true],
    [wallet('a@FAIL.TEST'), true],
    [wallet('a@notfail.test'), false],
    [crypto('ERC20', `0x${'1'.repeat(36)}dead`), true],
    [crypto('ERC20', `0x${'1'.repeat(36)}DEAD`), false],
    [crypto('TRC20', `T${'a'.repeat(29)}DEAD`), true],
    [crypto('TRC20', `T${'a'.repeat(29)}dead`), false],
  ])('declines %j: %s', (destination, declined) => {
    expect(simulatedPayoutDecline(destination) !== null).toBe(declined);
  });

  it('answers the same reference for the same idempotency key, and a new one for another', async () => {
    const request = { idempotencyKey: 'wd_1', amountInCents: 100, destination: wallet('a@b.example'), livemode: false };
    const first = await simulatorProcessor.payout(request);
    expect(first).toMatchObject({ status: 'paid', processorTransactionId: expect.stringMatching(/^po_sim_/) });
    expect(await simulatorProcessor.payout(request)).toEqual(first);
    expect(await simulatorProcessor.payout({ ...request, idempotencyKey: 'wd_2' })).not.toEqual(first);
    // A payout is keyed: the first call under a key stands, whatever a later one asks (the processor's record).
    expect(await simulatorProcessor.payout({ ...request, destination: wallet('a@fail.test') })).toEqual(first);
    expect(await simulatorProcessor.payout({ ...request, idempotencyKey: 'wd_1_failing', destination: wallet('a@fail.test') })).toEqual({
      status: 'declined',
      message: 'Payout rejected: the wallet account cannot receive funds',
    });
  });

  it('gives an ERC20 payout a 0x hash and a TRC20 payout a bare one', async () => {
    const request = (network: 'ERC20' | 'TRC20', address: string) => ({ idempotencyKey: `wd_3_${network}`, amountInCents: 100, destination: crypto(network, address), livemode: false });
    expect(await simulatorProcessor.payout(request('ERC20', `0x${'1'.repeat(40)}`))).toMatchObject({ transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await simulatorProcessor.payout(request('TRC20', `T${'a'.repeat(33)}`))).toMatchObject({ transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe('processor backoff', () => {
  it('waits 30 s, doubling each round, never more than an hour', () => {
    expect([1, 2, 3, 4, 8, 50].map(processorBackoffMs)).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
    expect([30_000, 120_000, 3_600_000, 1_500].map(formatWait)).toEqual(['30 s', '2 min', '1 h', '2 s']);
  });
});
