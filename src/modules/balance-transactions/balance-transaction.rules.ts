/**
 * How the ledger becomes balance transactions: one item per ledger transaction and balance type it
 * moves. An item's `netInCents` is exactly the change it made to that balance type, so summing
 * `netInCents` per `balanceType` over all of a business's items gives `GET /api/balance`. Money in
 * `refunds_in_flight` is in none of the three balances, so a refund shows once, when it takes the money
 * (`refund`), and again only if it fails and gives it back (`refund_failure`); its completion moves no
 * balance and is no item.
 */
export const BALANCE_TYPES = ['available', 'reserved', 'pending_withdrawal'] as const;
export type BalanceType = (typeof BALANCE_TYPES)[number];

export const BALANCE_TRANSACTION_TYPES = [
  'payment',
  'fee',
  'reserve_hold',
  'reserve_release',
  'refund',
  'refund_failure',
  'withdrawal',
  'withdrawal_cancel',
  'withdrawal_failure',
  'dispute',
  'dispute_fee',
  'dispute_reversal',
] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/**
 * The type of each ledger kind, by the balance type it moves. A payment credits `available` (its
 * `payment` item, which also shows the fee) and `reserved` (its `reserve_hold`). `test.credit` is what
 * the test suite seeds balances with; no request or workflow posts it.
 */
const KIND_TYPES: Record<string, BalanceTransactionType | Partial<Record<BalanceType, BalanceTransactionType>>> = {
  payment: { available: 'payment', reserved: 'reserve_hold' },
  'test.credit': 'payment',
  'reserve.release': 'reserve_release',
  'refund.created': 'refund',
  'refund.failed': 'refund_failure',
  'withdrawal.created': 'withdrawal',
  'withdrawal.paid': 'withdrawal',
  'withdrawal.cancelled': 'withdrawal_cancel',
  'withdrawal.failed': 'withdrawal_failure',
  // A chargeback's amount and its fee (from `available`, below zero when owed, and from reserves), and a won one's amount back.
  'dispute.funds_withdrawn': 'dispute',
  'dispute.fee': 'dispute_fee',
  'dispute.funds_reinstated': 'dispute_reversal',
};

/** Every ledger kind that moves a balance; a kind missing here would break the invariant (unit-tested). */
export const LEDGER_KINDS = Object.keys(KIND_TYPES);

export function typeOf(kind: string, balanceType: BalanceType): BalanceTransactionType {
  const mapped = KIND_TYPES[kind];
  if (mapped === undefined) throw new RangeError(`ledger kind ${kind} has no balance transaction type`);
  if (typeof mapped === 'string') return mapped;
  const type = mapped[balanceType];
  if (!type) throw new RangeError(`ledger kind ${kind} does not move ${balanceType}`);
  return type;
}

/** The (kind, balance type) pairs a `type` filter selects; `fee` selects none (fees show on payments). */
type Pair = { kind: string; balanceType: BalanceType | null };
export function pairsOf(type: BalanceTransactionType): Pair[] {
  return Object.entries(KIND_TYPES).flatMap(([kind, mapped]): Pair[] => {
    if (typeof mapped === 'string') return mapped === type ? [{ kind, balanceType: null }] : [];
    return BALANCE_TYPES.filter((balanceType) => mapped[balanceType] === type).map((balanceType) => ({ kind, balanceType }));
  });
}

/**
 * `txn_<the ledger transaction's 32 hex>_<a|r|p>`: stable, and read back into the ledger transaction and
 * balance type without a table of its own. Ids compare in the list's order (newest ledger id first).
 */
const SUFFIX: Record<BalanceType, string> = { available: 'a', reserved: 'r', pending_withdrawal: 'p' };
export const BALANCE_TRANSACTION_ID = /^txn_([0-9a-f]{32})_([apr])$/;

export const balanceTransactionId = (ledgerTransactionId: string, balanceType: BalanceType): string =>
  `txn_${ledgerTransactionId.slice('ltx_'.length)}_${SUFFIX[balanceType]}`;

export function parseBalanceTransactionId(id: string): { ledgerTransactionId: string; balanceType: BalanceType } | null {
  const match = BALANCE_TRANSACTION_ID.exec(id);
  if (!match) return null;
  const balanceType = BALANCE_TYPES.find((t) => SUFFIX[t] === match[2])!;
  return { ledgerTransactionId: `ltx_${match[1]}`, balanceType };
}

/** A reserve's release may run more than once (`res_…#2`); the reserve is the source of each. */
export const sourceOfReference = (kind: string, referenceId: string): string =>
  kind === 'reserve.release' ? referenceId.replace(/#\d+$/, '') : referenceId;

const DESCRIPTIONS: Record<BalanceTransactionType, (source: string) => string> = {
  payment: (s) => (s.startsWith('ltx_') ? 'Test credit' : `Payment for checkout session ${s}`),
  fee: (s) => `Fee for ${s}`,
  reserve_hold: (s) => `Reserve ${s} held from a payment`,
  reserve_release: (s) => `Reserve ${s} released`,
  refund: (s) => `Refund ${s}`,
  refund_failure: (s) => `Refund ${s} failed; its funds returned`,
  withdrawal: (s) => `Withdrawal ${s} requested`,
  withdrawal_cancel: (s) => `Withdrawal ${s} cancelled; its funds returned`,
  withdrawal_failure: (s) => `Withdrawal ${s} failed; its funds returned`,
  dispute: (s) => `Chargeback ${s}: disputed amount withdrawn`,
  dispute_fee: (s) => `Chargeback ${s}: dispute fee`,
  dispute_reversal: (s) => `Chargeback ${s} won: disputed amount returned`,
};

export const descriptionOf = (type: BalanceTransactionType, sourceId: string, amount: number, balanceType: BalanceType): string =>
  type === 'withdrawal' && balanceType === 'pending_withdrawal' && amount < 0
    ? `Withdrawal ${sourceId} paid out`
    : DESCRIPTIONS[type](sourceId);
