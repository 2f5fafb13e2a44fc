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

export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return null;
    const createdAt = new Date(value[0]);
    return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: value[1] };
  } catch {
    return null;
  }
}

export function pageMeta(total: number, page: number, limit: number, hasNextPage: boolean) {
  const totalPages = Math.ceil(total / limit);
  return { total, page, limit, totalPages, hasNextPage, hasPreviousPage: page > 1 };
}
