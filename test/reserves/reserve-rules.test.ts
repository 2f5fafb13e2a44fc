import fc from 'fast-check';
import { heldOf, isoDuration, planConsumption, releaseReference, reserveConfigView, reserveStatusOf } from '../../src/modules/reserves/reserve.rules.js';

const reserve = (id: string, amount: number, consumed = 0, released = 0) => ({
  id,
  reserveAmountInCents: amount,
  consumedAmountInCents: consumed,
  releasedAmountInCents: released,
});

describe('reserve amounts and status', () => {
  it.each([
    [reserve('a', 100), 'active', 100],
    [reserve('a', 100, 40), 'partially_released', 60],
    [reserve('a', 100, 100), 'consumed', 0],
    [reserve('a', 100, 0, 100), 'released', 0],
    [reserve('a', 100, 40, 60), 'released', 0],
    // A failed refund gave 40 back after the release took 60: held again until its own release.
    [reserve('a', 100, 0, 60), 'partially_released', 40],
  ])('%o is %s holding %d', (r, status, held) => {
    expect(reserveStatusOf(r)).toBe(status);
    expect(heldOf(r)).toBe(held);
  });
});

describe('releasing on or after releaseAt', () => {
  it('references the first release by the reserve id and a later one by the cents released before it', () => {
    expect(releaseReference('res_1', 0)).toBe('res_1');
    expect(releaseReference('res_1', 450)).toBe('res_1#450');
    expect(releaseReference('res_1', 900)).toBe('res_1#900');
  });
});

describe('consuming reserves for a refund', () => {
  it('takes from the oldest first, skipping what holds nothing, and says what it could not take', () => {
    const plan = planConsumption([reserve('old', 100, 0, 100), reserve('a', 100, 30), reserve('b', 50)], 200);
    expect(plan).toEqual({ parts: [{ reserveId: 'a', amount: 70 }, { reserveId: 'b', amount: 50 }], taken: 120 });
    expect(planConsumption([reserve('a', 100)], 30)).toEqual({ parts: [{ reserveId: 'a', amount: 30 }], taken: 30 });
  });

  it('never takes more than asked or more than a reserve holds', () => {
    const arb = fc.array(fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.nat(10_000), fc.nat(10_000)), { maxLength: 10 });
    fc.assert(
      fc.property(arb, fc.nat(50_000), (rows, amount) => {
        const reserves = rows.map(([a, c, r], i) => {
          const consumed = Math.min(c, a);
          return reserve(`r${i}`, a, consumed, Math.min(r, a - consumed));
        });
        const plan = planConsumption(reserves, amount);
        const total = reserves.reduce((s, r) => s + heldOf(r), 0);
        expect(plan.taken).toBe(Math.min(amount, total));
        expect(plan.parts.reduce((s, p) => s + p.amount, 0)).toBe(plan.taken);
        for (const part of plan.parts) expect(part.amount).toBeLessThanOrEqual(heldOf(reserves.find((r) => r.id === part.reserveId)!));
      }),
    );
  });
});

describe('reserve configuration', () => {
  it.each([
    [90 * 86_400_000, 'P90D'],
    [10_000, 'PT10S'],
    [1.5 * 86_400_000, 'P1DT12H'],
    [3_723_500, 'PT1H2M3.5S'],
    [0, 'PT0S'],
  ])('writes %d ms as %s', (ms, iso) => expect(isoDuration(ms)).toBe(iso));

  it('reads the business terms', () => {
    expect(reserveConfigView({ reserveBps: 1000, reserveHoldMs: 90 * 86_400_000 })).toEqual({
      enabled: true,
      reservePercentage: 10,
      holdPeriodDays: 90,
      holdPeriod: 'P90D',
    });
    expect(reserveConfigView({ reserveBps: 0, reserveHoldMs: 43_200_000 })).toEqual({
      enabled: false,
      reservePercentage: 0,
      holdPeriodDays: 0.5,
      holdPeriod: 'PT12H',
    });
  });
});
