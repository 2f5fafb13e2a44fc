import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../../config.js';

/**
 * Endpoint signing secrets must stay usable for signing, so they cannot be hashed like API keys: they are
 * sealed with AES-256-GCM under a key from configuration. The endpoint id is the associated data, so a
 * sealed secret copied onto another endpoint's row does not open.
 */
const VERSION = 'v1';

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

export function sealSecret(key: Buffer, endpointId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64'))).join(':');
}

export function openSecret(key: Buffer, endpointId: string, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(':');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * The key endpoint secrets are sealed with: the configuration's (WEBHOOK_ENCRYPTION_KEY, or in
 * development the one src/main/keys.ts generated at start). Without one a process refuses to start.
 */
export function webhookEncryptionKey(config: Pick<Config, 'webhooks'>): Buffer {
  if (!config.webhooks.encryptionKey) {
    throw new ConfigError('Invalid configuration: WEBHOOK_ENCRYPTION_KEY is required in production (openssl rand -base64 32)');
  }
  return config.webhooks.encryptionKey;
}
