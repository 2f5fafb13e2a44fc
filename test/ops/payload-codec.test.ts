import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { ConfigError, loadConfig, TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { withKeys } from '../../src/main/keys.js';
import { EncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, payloadKeysFor, UNSEALED_REFUSED } from '../../src/temporal/payload-codec.js';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const ring = (value: string) => loadConfig({ NODE_ENV: 'test', PAYLOAD_ENCRYPTION_KEYS: value }).temporal.encryptionKeys!;
const jsonPayload = (value: unknown): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(JSON.stringify(value)),
});
const meta = (p: Payload, k: string) => Buffer.from(p.metadata![k]!).toString();

describe('the encrypting payload codec', () => {
  const plain = jsonPayload({ customerName: 'Ada Lovelace', customerEmail: 'ada@example.com' });

  it('seals a payload under the active key, naming it, and opens it again unchanged', async () => {
    const codec = new EncryptionCodec(ring(`k2:${key(2)},k1:${key(1)}`));
    const [sealed] = await codec.encode([plain]);
    expect(meta(sealed, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(meta(sealed, KEY_ID_METADATA)).toBe('k2');
    expect(Object.keys(sealed.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA]);
    expect(Buffer.from(sealed.data!).toString('latin1')).not.toContain('Ada');
    const [opened] = await codec.decode([sealed]);
    expect(meta(opened, 'encoding')).toBe('json/plain');
    expect(Buffer.from(opened.data!).toString()).toBe(Buffer.from(plain.data!).toString());
  });

  it('opens what a rotated-out key sealed, while sealing new payloads with the new key', async () => {
    const [old] = await new EncryptionCodec(ring(`k1:${key(1)}`)).encode([plain]);
    const rotated = new EncryptionCodec(ring(`k2:${key(2)},k1:${key(1)}`));
    expect(Buffer.from((await rotated.decode([old]))[0].data!).toString()).toContain('Ada Lovelace');
    expect(meta((await rotated.encode([plain]))[0], KEY_ID_METADATA)).toBe('k2');
  });

  it('refuses a payload sealed by a key it does not hold, naming the key id', async () => {
    const [sealed] = await new EncryptionCodec(ring(`gone:${key(3)}`)).encode([plain]);
    await expect(new EncryptionCodec(ring(`k1:${key(1)}`)).decode([sealed])).rejects.toThrow('payload sealed with key "gone"');
  });

  it('refuses a tampered payload, and one relabelled with another key id', async () => {
    const codec = new EncryptionCodec(ring(`k1:${key(1)},k2:${key(1)}`));
    const [sealed] = await codec.encode([plain]);
    const data = Buffer.from(sealed.data!);
    data[data.length - 1] ^= 1;
    await expect(codec.decode([{ ...sealed, data }])).rejects.toThrow();
    const relabelled = { ...sealed, metadata: { ...sealed.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('k2') } };
    await expect(codec.decode([relabelled])).rejects.toThrow();
  });

  it('passes payloads that are not sealed (histories from before encryption) through unchanged', async () => {
    const codec = new EncryptionCodec(ring(`k1:${key(1)}`));
    const binaryNull: Payload = { metadata: { encoding: new TextEncoder().encode('binary/null') } };
    expect(await codec.decode([plain, binaryNull])).toEqual([plain, binaryNull]);
  });

  it('with requireSealed (PAYLOAD_REQUIRE_SEALED), refuses a payload that is not sealed and still opens a sealed one', async () => {
    const codec = new EncryptionCodec(ring(`k1:${key(1)}`), { requireSealed: true });
    await expect(codec.decode([plain])).rejects.toThrow(UNSEALED_REFUSED);
    const [sealed] = await codec.encode([plain]);
    expect(Buffer.from((await codec.decode([sealed]))[0].data!).toString()).toContain('Ada Lovelace');
  });
});

describe('PAYLOAD_ENCRYPTION_KEYS', () => {
  it.each([
    ['nokey', 'each key must be keyId:base64key'],
    [`k1:${Buffer.alloc(16).toString('base64')}`, 'key "k1" must be 32 bytes'],
    [`k1:${key(1)},k1:${key(2)}`, 'key id "k1" appears twice'],
    [' , ', 'must name at least one keyId:base64key'],
  ])('refuses %s', (value, message) => {
    expect(() => ring(value)).toThrow(`Invalid configuration: PAYLOAD_ENCRYPTION_KEYS: ${message}`);
  });

  it('tests get a fixed ring; production without one fails to start, naming the variable', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).temporal.encryptionKeys).toEqual(ring(TEST_PAYLOAD_ENCRYPTION_KEYS));
    const production = loadConfig({ NODE_ENV: 'production', WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(() => withKeys(production)).toThrow(ConfigError);
    expect(() => withKeys(production)).toThrow('PAYLOAD_ENCRYPTION_KEYS (e.g. k1:$(openssl rand -base64 32); the first key seals) is required in production');
    expect(() => payloadKeysFor(production)).toThrow('PAYLOAD_ENCRYPTION_KEYS is required in production');
  });

  it('development generates one key under the data directory (0600) and keeps it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'payload-keys-'));
    try {
      const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dir });
      const keys = payloadKeysFor(withKeys(config));
      expect(keys).toHaveLength(1);
      expect(keys[0].id).toBe('dev-1');
      const file = path.join(dir, 'payload-encryption.keys');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toBe(`dev-1:${keys[0].key.toString('base64')}`);
      expect(payloadKeysFor(withKeys(loadConfig({ NODE_ENV: 'development', DATA_DIR: dir })))).toEqual(keys);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
