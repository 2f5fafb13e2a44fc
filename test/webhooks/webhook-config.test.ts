import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { webhookEncryptionKey } from '../../src/modules/webhooks/index.js';
import { withKeys } from '../../src/main/keys.js';

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'webhook-key-'));

describe('webhook configuration', () => {
  it('reads WEBHOOK_ENCRYPTION_KEY as base64 or 64 hex digits, and refuses anything else', () => {
    const base64 = Buffer.alloc(32, 9).toString('base64');
    expect(loadConfig({ WEBHOOK_ENCRYPTION_KEY: base64 }).webhooks.encryptionKey).toEqual(Buffer.alloc(32, 9));
    expect(loadConfig({ WEBHOOK_ENCRYPTION_KEY: '0a'.repeat(32) }).webhooks.encryptionKey).toEqual(Buffer.alloc(32, 10));
    expect(() => loadConfig({ WEBHOOK_ENCRYPTION_KEY: 'short' })).toThrow(
      'Invalid configuration: WEBHOOK_ENCRYPTION_KEY: must be 32 bytes as 64 hex digits or base64',
    );
  });

  it('allows private receivers outside production only, unless told otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).webhooks.allowPrivateUrls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).webhooks.allowPrivateUrls).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }).webhooks.allowPrivateUrls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', ALLOW_PRIVATE_WEBHOOK_URLS: 'false' }).webhooks.allowPrivateUrls).toBe(false);
  });

  it('disables a failing endpoint after 5 days unless WEBHOOK_DISABLE_AFTER says otherwise', () => {
    expect(loadConfig({}).webhooks.disableAfterMs).toBe(5 * 24 * 3600 * 1000);
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOK_DISABLE_AFTER: '2d' }).webhooks.disableAfterMs).toBe(2 * 24 * 3600 * 1000);
    expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER: 'soon' })).toThrow('Invalid configuration: WEBHOOK_DISABLE_AFTER:');
  });

  it('takes a shortened retry schedule in tests only', () => {
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_DELAYS: '0,1s,500ms' }).webhooks.retryDelaysMs).toEqual([0, 1000, 500]);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_RETRY_DELAYS: '0,1s' })).toThrow(ConfigError);
  });

  it('generates a key on first start in development, mode 0600, and keeps it', () => {
    const dataDir = tempDir();
    const config = withKeys(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }));
    const key = webhookEncryptionKey(config);
    expect(key).toHaveLength(32);
    const file = path.join(config.dataDir, 'webhook-encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(key);
    // A second process on the same data directory gets the same key.
    expect(webhookEncryptionKey(withKeys(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir })))).toEqual(key);
  });

  it('refuses to start in production without a key', () => {
    const production = loadConfig({ NODE_ENV: 'production', DATA_DIR: tempDir(), PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS });
    expect(() => withKeys(production)).toThrow('WEBHOOK_ENCRYPTION_KEY (openssl rand -base64 32) is required in production');
    expect(() => webhookEncryptionKey(production)).toThrow('WEBHOOK_ENCRYPTION_KEY is required in production');
  });
});
