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

/**
 * Checkout sessions are plain UUIDs, as the spec's create response shows, and the id is the only
 * credential of the hosted page, pay and cancel: a UUIDv7 whose rand_a and rand_b (74 bits) are all
 * random. No counter, unlike `newId`: a counter makes the ids of one millisecond predictable from one
 * another. Still v7, not v4, so that new sessions land at the right edge of their primary key's index
 * instead of on a random page of it; within a millisecond they sort at random (lists order by createdAt
 * first). docs/decisions.md, The checkout session id.
 */
export function newSessionId(): string {
  const bytes = pooledRandom16();
  const msecs = Date.now();
  bytes[0] = msecs / 2 ** 40;
  bytes[1] = msecs / 2 ** 32;
  bytes[2] = msecs >>> 24;
  bytes[3] = msecs >>> 16;
  bytes[4] = msecs >>> 8;
  bytes[5] = msecs;
  bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7; the low nibble and byte 7 are rand_a
  bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 10; the rest of byte 8 and bytes 9-15 are rand_b
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
