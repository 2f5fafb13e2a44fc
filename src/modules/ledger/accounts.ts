/**
 * The chart of accounts. Business accounts hold a merchant's money in one mode and can never go
 * negative; platform accounts are the other side of money entering or leaving the platform.
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
 * Applies a posting to the cached figures: the pure rule behind every money move. Throws when the
 * entries do not sum to zero, an amount is not whole cents, or a business account would go negative
 * (callers check their business rule first and raise the spec's error; this is the last guard).
 */
export function applyPosting(balance: BalanceFigures, lines: PostingLine[]): BalanceFigures {
  if (lines.length < 2) throw new LedgerInvariantError('a transaction needs at least two entries');
  let sum = 0;
  const next = { ...balance };
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0) {
      throw new LedgerInvariantError(`entry amount must be non-zero whole cents, got ${line.amount}`);
    }
    sum += line.amount;
    if (isBusinessAccount(line.account)) next[line.account] += line.amount;
  }
  if (sum !== 0) throw new LedgerInvariantError(`entries sum to ${sum}, not zero`);
  for (const account of BUSINESS_ACCOUNTS) {
    if (next[account] < 0) throw new LedgerInvariantError(`${account} would go negative (${next[account]})`);
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
