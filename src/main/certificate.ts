import { ConfigError, type Config } from '../config.js';

/** The one line a production API without a certificate stops with: what to set, either way. */
export const CERTIFICATE_REQUIRED =
  'Invalid configuration: production needs the API\'s certificate (TLS_CERT_FILE and TLS_KEY_FILE), or TRUST_PROXY=true with TRUSTED_PROXIES behind a TLS-terminating proxy; the development certificate is for NODE_ENV=development';

/**
 * The API in production refuses to serve the development certificate (`CN=localhost`, issued by the
 * development CA under the data directory): the hosted page posts card numbers over this connection, and
 * people click through a certificate warning. As src/main/keys.ts refuses missing keys, this refuses a
 * missing certificate, before the process connects to anything. Development and the test suite keep the
 * generated one.
 */
export function assertCertificate(config: Pick<Config, 'env' | 'http'>): void {
  if (config.env !== 'production' || config.http.tlsCertFile || config.http.trustProxy) return;
  throw new ConfigError(CERTIFICATE_REQUIRED);
}
