/**
 * Opaque keyset cursors: the (createdAt, id) of the last row seen. Lists are ordered newest first by
 * that pair, so a cursor stays valid and stable while new rows are created.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
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
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [at, id] = value as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || !ISO_INSTANT.test(at) || !CURSOR_IDS[list].test(id)) return null;
  const createdAt = new Date(at);
  // Year 0000 passes both checks above, and PostgreSQL refuses it.
  return Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at || createdAt.getUTCFullYear() < 1 ? null : { createdAt, id };
}

export function pageMeta(total: number, page: number, limit: number, hasNextPage: boolean) {
  const totalPages = Math.ceil(total / limit);
  return { total, page, limit, totalPages, hasNextPage, hasPreviousPage: page > 1 };
}
