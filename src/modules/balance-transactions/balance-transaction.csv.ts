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

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, its quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
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
