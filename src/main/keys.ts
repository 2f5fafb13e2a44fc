import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, encryptionKey, payloadKeyRing, type Config } from '../config.js';
import { devKeyFile } from '../dev/key-file.js';

/**
 * Every key a process seals with, resolved in one place when it starts: from configuration
 * (WEBHOOK_ENCRYPTION_KEY, PAYLOAD_ENCRYPTION_KEYS); outside production, a key not configured is generated
 * once under the data directory (mode 0600, src/dev/key-file.ts), so `npm start`'s API, worker and codec
 * endpoint share it. Production refuses to start without them: a lost key makes every endpoint's secret,
 * or every open workflow's history, unusable, so they are managed like the database's credentials. The
 * code that seals takes them from the configuration this returns, and knows no fallback.
 */
export function withKeys(config: Config): Config {
  const webhookKey = config.webhooks.encryptionKey ?? generated(config, 'WEBHOOK_ENCRYPTION_KEY (openssl rand -base64 32)', 'webhook-encryption.key', {
    make: () => randomBytes(32).toString('base64'),
    read: (text) => encryptionKey.safeParse(text),
    what: 'a 32-byte key',
  });
  const payloadKeys = config.temporal.encryptionKeys?.length
    ? config.temporal.encryptionKeys
    : generated(config, 'PAYLOAD_ENCRYPTION_KEYS (e.g. k1:$(openssl rand -base64 32); the first key seals)', 'payload-encryption.keys', {
        make: () => `dev-1:${randomBytes(32).toString('base64')}`,
        read: (text) => payloadKeyRing.safeParse(text),
        what: 'keyId:base64key entries',
      });
  return { ...config, webhooks: { ...config.webhooks, encryptionKey: webhookKey }, temporal: { ...config.temporal, encryptionKeys: payloadKeys } };
}

/** A development key from `dataDir/file`, made on first use; refused in production, where `variable` must be set. */
function generated<T>(
  config: Pick<Config, 'env' | 'dataDir'>,
  variable: string,
  file: string,
  key: { make: () => string; read: (text: string) => { success: true; data: T } | { success: false }; what: string },
): T {
  if (config.env === 'production') throw new ConfigError(`Invalid configuration: ${variable} is required in production`);
  const parsed = key.read(devKeyFile(config.dataDir, file, key.make));
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${path.join(config.dataDir, file)} does not hold ${key.what}`);
  return parsed.data;
}
