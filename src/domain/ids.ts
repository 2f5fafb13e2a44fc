import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** The spec's identifier prefixes, plus the ones this service adds for its own records. */
export type IdPrefix =
  | 'biz' | 'key' | 'wm' | 'item' | 'wd' | 'ref' | 'res' | 'wh' | 'evt' | 'req' | 'whd' | 'ltx';

/**
 * `<prefix>_<32 hex>`, time-ordered (UUIDv7 underneath) so that ids sort by creation, which keeps
 * cursors and index inserts cheap.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${uuidv7().replaceAll('-', '')}`;
}

/** Checkout sessions are plain UUIDs, as the spec's create response shows. Time-ordered as well. */
export function newSessionId(): string {
  return uuidv7();
}

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
