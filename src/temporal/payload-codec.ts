import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { ConfigError, type Config, type PayloadKey } from '../config.js';

/**
 * Every payload Temporal stores (workflow and activity inputs and results, signals, updates, queries,
 * memo, failure messages) leaves this process sealed with AES-256-GCM, so a history holds no customer's
 * name, e-mail, address or payout destination in the clear. The sealed payload names its key, so a
 * rotated key ring still opens old histories. Search attributes are not payloads: they stay plain and
 * carry no personal data (contracts/search-attributes.ts).
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** What a worker under PAYLOAD_REQUIRE_SEALED says of a plain payload (a workflow task failure an operator sees). */
export const UNSEALED_REFUSED = 'Refused a payload that is not sealed (PAYLOAD_REQUIRE_SEALED=true): send it through this service, or through a codec endpoint';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const text = (value: string) => new TextEncoder().encode(value);
const readText = (value: Uint8Array | null | undefined) => (value ? Buffer.from(value).toString('utf8') : undefined);
const b64 = (value: Uint8Array | null | undefined) => Buffer.from(value ?? []).toString('base64');

export class EncryptionCodec implements PayloadCodec {
  /**
   * Each key imported once: a raw Buffer passed to createCipheriv is imported again on every call, which
   * made a seal three times slower (12.8 → 4.4 µs) and showed as a few percent of the worker's CPU.
   */
  private readonly byId: Map<string, KeyObject>;
  private readonly sealing: { id: string; key: KeyObject };

  /**
   * `keys[0]` seals; every key opens what it sealed. With `requireSealed`, a payload that is not sealed
   * is refused instead of passed through (PAYLOAD_REQUIRE_SEALED, the worker of a deployment whose
   * histories are all sealed): nothing this service wrote is plain, so a plain input, signal or update
   * was written by someone else, around the service.
   */
  constructor(
    keys: PayloadKey[],
    private readonly opts: { requireSealed?: boolean } = {},
  ) {
    if (!keys.length) throw new Error('the payload codec needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, createSecretKey(k.key)]));
    this.sealing = { id: keys[0].id, key: createSecretKey(keys[0].key) };
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.sealing;
    return payloads.map((payload) => {
      // The whole payload, metadata included: its encoding (json/plain, binary/null) is no one's business either.
      const plain = Buffer.from(JSON.stringify({ m: mapValues(payload.metadata ?? {}, b64), d: b64(payload.data) }));
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(text(id)); // a payload relabelled with another key id does not open
      const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
      return {
        metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(id) },
        data: Buffer.concat([iv, cipher.getAuthTag(), sealed]),
      };
    });
  }

  /**
   * Payloads that are not sealed (histories from before encryption, the recorded fixtures) pass unchanged,
   * unless the codec requires sealing.
   */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (readText(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) {
        if (this.opts.requireSealed) throw new Error(UNSEALED_REFUSED);
        return payload;
      }
      const id = readText(payload.metadata?.[KEY_ID_METADATA]) ?? '';
      const key = this.byId.get(id);
      if (!key) throw new Error(`payload sealed with key "${id}", which is not in PAYLOAD_ENCRYPTION_KEYS`);
      const data = Buffer.from(payload.data ?? []);
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(text(id));
      decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      const inner = JSON.parse(plain.toString('utf8')) as { m: Record<string, string>; d: string };
      return { metadata: mapValues(inner.m, (v) => new Uint8Array(Buffer.from(v, 'base64'))), data: new Uint8Array(Buffer.from(inner.d, 'base64')) };
    });
  }
}

function mapValues<A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}

/**
 * The failure converter the worker and client load by path (the SDK requires it, in the main thread and
 * inside the workflow bundle): the default one with `encodeCommonAttributes`, so a failure's message and
 * stack trace travel as a payload, sealed by the codec, and the history keeps only "Encoded failure".
 */
export const failureConverterPath = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/** The data converter of every client and worker of this service; a worker may require sealed payloads. */
export function encryptingDataConverter(keys: PayloadKey[] | undefined, opts: { requireSealed?: boolean } = {}): DataConverter {
  if (!keys?.length) throw new ConfigError('Invalid configuration: PAYLOAD_ENCRYPTION_KEYS is not set (keyId:base64key, active key first)');
  return { payloadCodecs: [new EncryptionCodec(keys, opts)], failureConverterPath };
}

/**
 * The key ring of this process: PAYLOAD_ENCRYPTION_KEYS (a fixed test ring under NODE_ENV=test, and in
 * development the one src/main/keys.ts generated at start). Without one a process refuses to start.
 */
export function payloadKeysFor(config: Pick<Config, 'temporal'>): PayloadKey[] {
  if (!config.temporal.encryptionKeys?.length) {
    throw new ConfigError(
      'Invalid configuration: PAYLOAD_ENCRYPTION_KEYS is required in production (e.g. k1:$(openssl rand -base64 32); the first key seals)',
    );
  }
  return config.temporal.encryptionKeys;
}
