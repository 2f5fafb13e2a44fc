/**
 * SQL fragments the history seed builds its rows with. Every statement reads its sizes and the business's
 * terms from one row, `seed_params p`, so no statement takes parameters of its own.
 */

/**
 * A service id's 32 hex digits as `newId` makes them: a UUIDv7 whose first 48 bits are the row's time in
 * milliseconds (so ids sort by creation, as the service's do) and whose other bits come from the md5 of
 * `salt` (unique per row: the seed's nonce, the row's kind and its index).
 */
export const hex = (at: string, salt: string) =>
  `(lpad(to_hex(floor(extract(epoch from ${at}) * 1000)::bigint), 12, '0') || '7' || substr(md5(${salt}), 1, 3) || '8' || substr(md5(${salt}), 4, 15))`;

/** `<prefix>_<32 hex>` for the row of kind `tag` and index `index`, created at `at`. */
export const seedId = (prefix: string, at: string, tag: string, index: string) => `'${prefix}_' || ${hex(at, `p.nonce || ':${tag}:' || ${index}`)}`;

/** A checkout session's UUID (the service's are UUIDv7 too). */
export const sessionUuid = (at: string, index: string) => `${hex(at, `p.nonce || ':session:' || ${index}`)}::uuid`;

/** `Date.toISOString()` of a timestamptz: what every payload's `timestamp` holds. */
export const iso = (at: string) => `to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `centsToDecimalString` of a positive amount. */
export const decimals = (cents: string) => `((${cents}) / 100)::text || '.' || lpad(((${cents}) % 100)::text, 2, '0')`;

/** The delay before each of a webhook delivery's 7 attempts, summed: when attempt n went out after the first. */
export const ATTEMPT_OFFSETS = `(array[interval '0', interval '1 minute', interval '6 minutes', interval '36 minutes',
  interval '2 hours 36 minutes', interval '10 hours 36 minutes', interval '34 hours 36 minutes'])`;
