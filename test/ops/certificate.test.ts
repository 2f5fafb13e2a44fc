import { ConfigError, loadConfig } from '../../src/config.js';
import { assertCertificate, CERTIFICATE_REQUIRED } from '../../src/main/certificate.js';

/** The API in production serves a certificate of its own or sits behind a TLS-terminating proxy (issue 43). */
describe('assertCertificate', () => {
  it.each([
    ['NODE_ENV unset (the entry points default it to production)', {}],
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
  ])('%s, no TLS_CERT_FILE, TRUST_PROXY false: refused with one line naming the settings', (_, env) => {
    const config = loadConfig(env, 'production');
    expect(() => assertCertificate(config)).toThrow(ConfigError);
    expect(() => assertCertificate(config)).toThrow(CERTIFICATE_REQUIRED);
    expect(CERTIFICATE_REQUIRED).not.toContain('\n');
    for (const name of ['TLS_CERT_FILE', 'TLS_KEY_FILE', 'TRUST_PROXY', 'TRUSTED_PROXIES']) expect(CERTIFICATE_REQUIRED).toContain(name);
  });

  it.each([
    ['a certificate', { NODE_ENV: 'production', TLS_CERT_FILE: '/run/secrets/api.crt', TLS_KEY_FILE: '/run/secrets/api.key' }],
    ['a TLS-terminating proxy', { NODE_ENV: 'production', TRUST_PROXY: 'true', TRUSTED_PROXIES: '10.0.0.2' }],
    ['development (npm run api beside npm start)', { NODE_ENV: 'development' }],
    ['the test suite', { NODE_ENV: 'test' }],
  ])('%s: allowed', (_, env) => {
    expect(() => assertCertificate(loadConfig(env, 'production'))).not.toThrow();
  });
});
