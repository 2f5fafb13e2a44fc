/**
 * The chart of accounts. Business accounts hold a merchant's money in one mode and are never taken below
 * zero, but for one case: a chargeback may leave `available` negative, the business owing the rest
 * (docs/disputes.md). Platform accounts are the other side of money entering or leaving the platform.
 *
 * Sign convention: an entry's amount is the change in that account's balance. Every transaction's
 * entries sum to zero, so money is only ever moved, never created or lost.
 */
export const BUSINESS_ACCOUNTS = ['available', 'reserved', 'pending_withdrawal', 'refunds_in_flight'] as const;
export type BusinessAccount = (typeof BUSINESS_ACCOUNTS)[number];

export const PLATFORM_ACCOUNTS = ['processor_clearing', 'fee_revenue', 'payouts_clearing'] as const;
export type PlatformAccount = (typeof PLATFORM_ACCOUNTS)[number];

export type Account = BusinessAccount | PlatformAccount;

export interface PostingLine {
  account: Account;
  amount: number;
}

/** Cached per-business, per-mode figures (the `balances` row). */
export type BalanceFigures = Record<BusinessAccount, number>;

export const isBusinessAccount = (account: Account): account is BusinessAccount =>
  (BUSINESS_ACCOUNTS as readonly string[]).includes(account);

export class LedgerInvariantError extends Error {}

/**
 * What a posting changes on the cached figures. Throws when the entries do not sum to zero or an amount
 * is not whole, non-zero cents: a posting that could never be applied is refused before any balance is.
 */
export function postingDeltas(lines: PostingLine[]): BalanceFigures {
  if (lines.length < 2) throw new LedgerInvariantError('a transaction needs at least two entries');
  let sum = 0;
  const delta: BalanceFigures = { available: 0, reserved: 0, pending_withdrawal: 0, refunds_in_flight: 0 };
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0) {
      throw new LedgerInvariantError(`entry amount must be non-zero whole cents, got ${line.amount}`);
    }
    sum += line.amount;
    if (isBusinessAccount(line.account)) delta[line.account] += line.amount;
  }
  if (sum !== 0) throw new LedgerInvariantError(`entries sum to ${sum}, not zero`);
  return delta;
}

/**
 * Applies a posting to the cached figures: the pure rule behind every money move. Throws when the
 * posting is malformed (`postingDeltas`) or lowers a business account below zero (callers check their
 * business rule first and raise the spec's error; this is the last guard). Only a chargeback passes
 * `overdraw`, which lets it take `available` below zero. A posting that raises an account may leave it
 * below zero: a payment or release credits `available` as usual, and so pays a chargeback's debt down.
 */
export function applyPosting(balance: BalanceFigures, lines: PostingLine[], opts: { overdraw?: boolean } = {}): BalanceFigures {
  const delta = postingDeltas(lines);
  const next = { ...balance };
  for (const account of BUSINESS_ACCOUNTS) {
    next[account] += delta[account];
    const lowered = delta[account] < 0;
    if (next[account] < 0 && lowered && !(opts.overdraw && account === 'available')) {
      throw new LedgerInvariantError(`${account} would go negative (${next[account]})`);
    }
  }
  return next;
}

/** The two lines of a plain move of `amount` cents from one account to another. */
export function transfer(from: Account, to: Account, amount: number): PostingLine[] {
  return [
    { account: from, amount: -amount },
    { account: to, amount },
  ];
}

/** Drops zero lines, so callers can describe a split (say, all from available, none from reserves) plainly. */
export function lines(...candidates: PostingLine[]): PostingLine[] {
  return candidates.filter((line) => line.amount !== 0);
}
