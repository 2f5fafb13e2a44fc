import fc from 'fast-check';
import { applyPosting, LedgerInvariantError } from '../../src/modules/ledger/accounts.rules.js';
import {
  amountFromReserves,
  chargebackFunding,
  chargebackLines,
  decisionOf,
  mergeEvidence,
  emptyEvidence,
  reinstatementLines,
  reinstatementPlan,
} from '../../src/modules/disputes/dispute.rules.js';
import { refundFunding } from '../../src/modules/refunds/refund.rules.js';
import { createSimulatorProcessor, chargeKind } from '../../src/modules/processor/simulator/charges.simulator.js';
import { simulatedEvidenceDecision } from '../../src/modules/processor/simulator/disputes.simulator.js';
import { parsedCard } from '../support/payments.js';

const zero = { available: 0, reserved: 0, pending_withdrawal: 0, refunds_in_flight: 0 };

describe("a chargeback's funding", () => {
  it('takes the amount, then the fee, from available above zero, then reserves, the rest owed: the same totals as both at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: -5_000_000, max: 20_000_000 }),
        fc.integer({ min: 0, max: 20_000_000 }),
        (amount, fee, available, held) => {
          const f = chargebackFunding(amount, fee, { available, heldInReserves: held });
          const total = amount + fee;
          const fromAvailable = Math.min(Math.max(available, 0), total);
          const fromReserves = Math.min(held, total - fromAvailable);
          expect(f.total).toEqual({ fromAvailable, fromReserves, owed: total - fromAvailable - fromReserves });
          for (const [part, cents] of [[f.amount, amount], [f.fee, fee]] as const) {
            expect(part.fromAvailable + part.fromReserves + part.owed).toBe(cents);
            expect(Math.min(part.fromAvailable, part.fromReserves, part.owed)).toBeGreaterThanOrEqual(0);
          }
          // What it leaves: available down by its share and the owed part; never below zero unless something is owed.
          const postings = [chargebackLines(f.amount, 'processor_clearing'), ...(fee > 0 ? [chargebackLines(f.fee, 'fee_revenue')] : [])];
          const after = postings.reduce((figures, lines) => applyPosting(figures, lines, { overdraw: true }), { ...zero, available, reserved: held });
          expect(after.reserved).toBe(held - f.total.fromReserves);
          expect(after.available).toBe(available - f.total.fromAvailable - f.total.owed);
          if (f.total.owed === 0) expect(after.available).toBeGreaterThanOrEqual(Math.min(available, 0));
        },
      ),
    );
  });

  it('posts one balanced move per part, and a won one returns the amount to available', () => {
    expect(chargebackLines({ fromAvailable: 4048, fromReserves: 450, owed: 160 }, 'processor_clearing')).toEqual([
      { account: 'available', amount: -4208 },
      { account: 'reserved', amount: -450 },
      { account: 'processor_clearing', amount: 4658 },
    ]);
    expect(chargebackLines({ fromAvailable: 0, fromReserves: 0, owed: 1500 }, 'fee_revenue')).toEqual([
      { account: 'available', amount: -1500 },
      { account: 'fee_revenue', amount: 1500 },
    ]);
    expect(reinstatementLines(4658)).toEqual([
      { account: 'processor_clearing', amount: -4658 },
      { account: 'available', amount: 4658 },
    ]);
    expect(reinstatementLines(4658, 450)).toEqual([
      { account: 'processor_clearing', amount: -4658 },
      { account: 'reserved', amount: 450 },
      { account: 'available', amount: 4208 },
    ]);
  });

  it("reads the reserves' part of the amount back from the totals, as chargebackFunding split it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: -5_000_000, max: 20_000_000 }),
        fc.integer({ min: 0, max: 20_000_000 }),
        (amount, fee, available, held) => {
          const f = chargebackFunding(amount, fee, { available, heldInReserves: held });
          const row = { amountInCents: amount, fromAvailableInCents: f.total.fromAvailable, fromReservesInCents: f.total.fromReserves };
          expect(amountFromReserves(row)).toBe(f.amount.fromReserves);
        },
      ),
    );
    expect(amountFromReserves({ amountInCents: 1000, fromAvailableInCents: null, fromReservesInCents: null })).toBe(0);
  });

  it("returns a won amount's reserve part, oldest share first, to the reserves still holding, the rest to available", () => {
    const shares = [
      { reserveId: 'res_old', amountInCents: 2249, holding: false },
      { reserveId: 'res_mid', amountInCents: 2249, holding: true },
      { reserveId: 'res_new', amountInCents: 1000, holding: true },
    ];
    // The amount took 3000 of the 5498 from reserves: res_old whole (due: to available), 751 of res_mid.
    expect(reinstatementPlan(4658, 3000, shares)).toEqual({ toReserves: [{ reserveId: 'res_mid', amount: 751 }], toAvailable: 4658 - 751 });
    expect(reinstatementPlan(4658, 0, shares)).toEqual({ toReserves: [], toAvailable: 4658 });
    expect(reinstatementPlan(4658, 4658, shares.slice(1))).toEqual({ toReserves: [{ reserveId: 'res_mid', amount: 2249 }, { reserveId: 'res_new', amount: 1000 }], toAvailable: 1409 });
  });
});

describe('available below zero', () => {
  const chargeback = chargebackLines({ fromAvailable: 100, fromReserves: 0, owed: 50 }, 'processor_clearing');
  it('only a chargeback may take it there; a credit may leave it there; nothing else may lower it further', () => {
    const start = { ...zero, available: 100 };
    expect(() => applyPosting(start, chargeback)).toThrow(LedgerInvariantError);
    const owing = applyPosting(start, chargeback, { overdraw: true });
    expect(owing.available).toBe(-50);
    expect(applyPosting(owing, [{ account: 'processor_clearing', amount: -30 }, { account: 'available', amount: 30 }]).available).toBe(-20);
    expect(() => applyPosting(owing, [{ account: 'available', amount: -1 }, { account: 'pending_withdrawal', amount: 1 }])).toThrow(LedgerInvariantError);
    // A move that does not touch available is not stopped by the debt.
    expect(applyPosting({ ...owing, reserved: 10 }, [{ account: 'reserved', amount: -10 }, { account: 'refunds_in_flight', amount: 10 }]).available).toBe(-50);
  });

  it('gives a refund nothing and takes nothing from it: the reserves alone fund it', () => {
    expect(refundFunding(400, { available: -50, heldInReserves: 500 })).toEqual({ fromAvailable: 0, fromReserves: 400 });
    expect(refundFunding(400, { available: -50, heldInReserves: 399 })).toBeNull();
    expect(refundFunding(400, { available: 300, heldInReserves: 100 })).toEqual({ fromAvailable: 300, fromReserves: 100 });
  });
});

describe('decisions', () => {
  it.each([
    ['needs_response', 'won', { status: 'won', reinstate: true, escalate: false }],
    ['under_review', 'lost', { status: 'lost', reinstate: false, escalate: false }],
    ['warning_under_review', 'won', { status: 'warning_closed', reinstate: false, escalate: false }],
    ['warning_needs_response', 'lost', { status: 'needs_response', reinstate: false, escalate: true }],
  ] as const)('%s decided %s', (status, outcome, next) => {
    expect(decisionOf(status, outcome)).toEqual(next);
  });
});

describe('evidence', () => {
  it('keeps fields left out, replaces those given, clears one given as null', () => {
    const saved = mergeEvidence(emptyEvidence(), { customerName: 'Ada', shippingCarrier: 'UPS' });
    expect(mergeEvidence(saved, { shippingCarrier: null, refundPolicy: '30 days' })).toEqual({ ...emptyEvidence(), customerName: 'Ada', refundPolicy: '30 days' });
  });

  it("is decided by the simulated network's test phrases, in any field; losing_evidence wins over winning_evidence", () => {
    expect(simulatedEvidenceDecision({ evidence: { uncategorizedText: 'see attached: winning_evidence' } })).toBe('won');
    expect(simulatedEvidenceDecision({ evidence: { productDescription: 'losing_evidence', uncategorizedText: null } })).toBe('lost');
    expect(simulatedEvidenceDecision({ evidence: { productDescription: 'winning_evidence', refundPolicy: 'losing_evidence' } })).toBe('lost');
    expect(simulatedEvidenceDecision({ evidence: { uncategorizedText: 'Delivered and signed for.' } })).toBeNull();
  });
});

describe("the simulator's dispute cards", () => {
  const simulator = createSimulatorProcessor();
  it.each([
    ['4000000000000259', { reason: 'fraudulent', inquiry: false }],
    ['4000000000002685', { reason: 'product_not_received', inquiry: false }],
    ['4000000000001976', { reason: 'fraudulent', inquiry: true }],
    ['4242424242424242', null],
    ['4000000000005126', null],
  ] as const)('%s pays, and the acquirer then reports %j', async (number, notice) => {
    const { token } = await simulator.tokenize(parsedCard(number, 2040), false);
    const outcome = await simulator.charge({ token, amountInCents: 4658, currency: 'USD', idempotencyKey: `k-${number}`, livemode: false, reference: null });
    if (outcome.status !== 'succeeded') throw new Error(`declined: ${outcome.message}`);
    expect(chargeKind(outcome.chargeId)).not.toBeNull();
    expect(await simulator.disputeNotice({ chargeId: outcome.chargeId, livemode: false })).toEqual(notice);
  });
});
