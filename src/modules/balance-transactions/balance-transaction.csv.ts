import type { BalanceTransactionResource } from './balance-transaction.schemas.js';

const COLUMNS = [
  'id',
  'type',
  'amountInCents',
  'feeInCents',
  'netInCents',
  'balanceType',
  'sourceId',
  'createdAt',
  'availableOn',
  'description',
  'funding',
] as const;

/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180: a field with a comma, quote, CR or LF is quoted, its quotes doubled. A text cell that a
 * spreadsheet would run as a formula gets a leading `'`, as OWASP's CSV-injection guidance says, so a
 * free-text column (today every cell is generated, but a description or a reason may be added) cannot
 * carry `=HYPERLINK(…)` into an accountant's sheet. Numbers are the service's own integers, and stay
 * numbers: `-4658` is an amount, not a formula.
 */
export function csvField(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** `available:4208;res_…:450`: a refund's funding in one cell; empty for other items. */
const fundingCell = (item: BalanceTransactionResource) =>
  (item.funding ?? []).map((part) => `${part.from}:${part.amountInCents}`).join(';');

/**
 * A header row and one row per item, amounts in signed integer cents. Lines end in LF, as everything else
 * the CLI prints (RFC 4180 readers accept it); line breaks inside a field are quoted.
 */
export function balanceTransactionsCsv(items: BalanceTransactionResource[]): string {
  const rows = items.map((item) =>
    COLUMNS.map((column) => csvField(column === 'funding' ? fundingCell(item) : item[column])).join(','),
  );
  return [COLUMNS.join(','), ...rows].join('\n');
}
