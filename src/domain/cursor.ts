import { z } from 'zod';

import { DomainError } from './errors.js';

/**
 * Opaque keyset cursors: the (createdAt, id) of the last row seen. Lists are ordered newest first by
 * that pair, so a cursor stays valid and stable while new rows are created. A list that also numbers
 * its pages carries the number of the page the cursor leads to, so no page number is ever counted.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
  /** The page this cursor leads to, in lists that number pages. */
  page?: number;
}

export function encodeCursor(position: CursorPosition): string {
  const parts: (string | number)[] = [position.createdAt.toISOString(), position.id];
  if (position.page !== undefined) parts.push(position.page);
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The ids a list's cursor may carry: a cursor from another list, or a forged one, is refused. */
export const CURSOR_IDS = {
  session: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  reserve: /^res_[0-9a-f]{32}$/,
  balanceTransaction: /^txn_[0-9a-f]{32}_[apr]$/,
  dispute: /^dsp_[0-9a-f]{32}$/,
} as const;

/** Longer than any cursor this service writes (about 90 characters). */
const MAX_CURSOR_LENGTH = 256;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A list's `cursor` query parameter, with the shape the document states: what `encodeCursor` writes is
 * base64url of a JSON array, so it starts `WyI` (`["`) and is at most 256 characters. A string of that
 * shape that this service did not write for the list is still refused (400 "Invalid cursor"): a cursor is
 * a position only the service can name, which no schema can state.
 */
export const cursorQuery = z
  .string()
  .max(MAX_CURSOR_LENGTH, { error: 'Invalid cursor', abort: true })
  .regex(/^WyI[A-Za-z0-9_-]+$/, { error: 'Invalid cursor' })
  .meta({ description: 'The `nextCursor` of the previous page of this list, as it was given (opaque).' });

/**
 * The position a cursor of `list` names, or null for anything this service did not write for that list.
 * The client holds the cursor, so nothing in it is trusted: every part that reaches SQL is checked to be
 * exactly what `encodeCursor` writes (an id of the list's shape, a four-digit-year ISO instant), so a
 * tampered cursor is a 400 rather than a database error.
 */
export function decodeCursor(cursor: string, list: keyof typeof CURSOR_IDS): CursorPosition | null {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) return null;
  const [at, id, page] = value as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || !ISO_INSTANT.test(at) || !CURSOR_IDS[list].test(id)) return null;
  if (page !== undefined && !(Number.isSafeInteger(page) && (page as number) >= 2)) return null;
  const createdAt = new Date(at);
  // Year 0000 passes both checks above, and PostgreSQL refuses it.
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at || createdAt.getUTCFullYear() < 1) return null;
  return page === undefined ? { createdAt, id } : { createdAt, id, page: page as number };
}

/** The most rows a filtered total counts; beyond it the total is this many and marked capped. */
export const COUNT_CAP = 10_000;

/** A list's total: exact, or `COUNT_CAP` standing for more (`capped`). */
export interface ListTotal {
  total: number;
  capped: boolean;
}

/**
 * The rows a page number may skip, at most: a deeper page of a list that long is refused, and a cursor
 * (which skips nothing) reaches it. Page numbers read the index entries they skip, so this bounds their
 * cost; a page past the end of the list is simply empty.
 */
export const MAX_PAGE_OFFSET = 10_000;

/** The refusal of a page deeper than `MAX_PAGE_OFFSET` rows into a list that has rows there. */
export const tooDeepPage = () =>
  new DomainError('validation_failed', {
    errors: [{ path: ['page'], message: `Page numbers reach ${MAX_PAGE_OFFSET.toLocaleString('en-US')} rows deep; follow nextCursor beyond` }],
  });

/** The spec's page meta; `totalCapped` appears only when the total is `COUNT_CAP` standing for more. */
export function pageMeta({ total, capped }: ListTotal, page: number, limit: number, hasNextPage: boolean) {
  const totalPages = Math.ceil(total / limit);
  return { total, page, limit, totalPages, hasNextPage, hasPreviousPage: page > 1, ...(capped ? { totalCapped: true as const } : {}) };
}
