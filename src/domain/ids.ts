import { randomFillSync, randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * UUIDv7's 16 random bytes from a pooled buffer of the CSPRNG's output, as node's own randomUUID
 * pools its entropy: uuid's default asks the CSPRNG once per id, a measurable cost on the busiest
 * request (two ids per session create). Each id gets bytes no other id gets.
 */
const POOL_BYTES = 16 * 256;
let pool = new Uint8Array(0);
let used = POOL_BYTES;
function pooledRandom16(): Uint8Array {
  if (used === POOL_BYTES) {
    pool = randomFillSync(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  used += 16;
  return pool.subarray(used - 16, used);
}

/** uuid's own v7 state, kept here because options bypass it: ids made in one millisecond still sort in order. */
const clock = { msecs: -Infinity, seq: 0 };
function uuidv7(): string {
  const random = pooledRandom16();
  const now = Date.now();
  if (now > clock.msecs) {
    clock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
    clock.msecs = now;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs++;
  }
  return v7({ random, msecs: clock.msecs, seq: clock.seq });
}

/** The spec's identifier prefixes, plus the ones this service adds for its own records. */
export type IdPrefix =
  | 'biz' | 'key' | 'wm' | 'item' | 'wd' | 'ref' | 'res' | 'wh' | 'evt' | 'req' | 'whd' | 'ltx' | 'dsp';

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
