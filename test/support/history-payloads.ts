/** Reads a fetched Temporal history for the privacy tests: its payloads, sealed or not, and all of its text. */
import type { Payload } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { ENCRYPTED_ENCODING } from '../../src/temporal/payload-codec.js';

/** Search attributes are indexed by the server, so they are never sealed (and carry no personal data). */
const UNSEALED_BY_DESIGN = new Set(['searchAttributes']);

const isPayload = (value: unknown): value is Payload =>
  typeof value === 'object' && value !== null && 'metadata' in value && 'data' in value && Boolean((value as Payload).metadata?.encoding);

/**
 * Marker details that Temporal's Core SDK writes itself, below the payload codec: a patch marker's
 * `patch-data` ({id, deprecated}) and a local activity marker's `data` (its sequence number, attempt, ids,
 * type and times). They hold the names of our own patches and activities, never an input or a result (a
 * local activity's result is the marker's `result`, which is sealed), so they pass only when every key is
 * one of these.
 */
const CORE_MARKER_KEYS: Record<string, ReadonlySet<string>> = {
  'patch-data': new Set(['id', 'deprecated']),
  data: new Set(['seq', 'attempt', 'activity_id', 'activity_type', 'complete_time', 'backoff', 'original_schedule_time']),
};

function isCoreMarkerMetadata(path: string, payload: Payload): boolean {
  const match = /\.markerRecordedEventAttributes\.details\.(patch-data|data)\.payloads\.\d+$/.exec(path);
  if (!match) return false;
  const keys = Object.keys(JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')) as object);
  return keys.every((key) => CORE_MARKER_KEYS[match[1]!]!.has(key));
}

/** Every payload of the history outside search attributes: the sealed ones, and the paths of any that are not. */
export function encryptedPayloads(history: History): { sealed: Payload[]; plain: string[] } {
  const sealed: Payload[] = [];
  const plain: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (isPayload(value)) {
      if (Buffer.from(value.metadata!.encoding!).toString() === ENCRYPTED_ENCODING) sealed.push(value);
      else if (!isCoreMarkerMetadata(path, value)) plain.push(`${path} (${Buffer.from(value.metadata!.encoding!).toString()})`);
      return;
    }
    for (const [key, child] of Object.entries(value)) if (!UNSEALED_BY_DESIGN.has(key)) walk(child, `${path}.${key}`);
  };
  walk(history.events ?? [], 'events');
  return { sealed, plain };
}

/** Every string and every byte string of the history (as UTF-8), one per line: what a reader of the raw history sees. */
export function plainText(history: History): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
    else if (value !== null && typeof value === 'object') for (const child of Object.values(value)) walk(child);
  };
  walk(history);
  return out.join('\n');
}

/** A payload in the codec protocol's JSON (metadata values and data base64). */
export const toWire = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
