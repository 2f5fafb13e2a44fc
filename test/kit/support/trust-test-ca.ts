import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/**
 * Makes this process's global fetch trust the test CA (the API's and the example shop's certificates),
 * as NODE_EXTRA_CA_CERTS does for a merchant's process, so the kit is tested over real TLS with the
 * real fetch. Node ≥ 22.15 (the tests run on the npm registry's Node 24).
 */
export function trustTestCa(): void {
  const ca = readFileSync(process.env.TEST_TLS_CA!, 'utf8');
  const current = tls.getCACertificates('default');
  if (!current.includes(ca)) tls.setDefaultCACertificates([...current, ca]);
}
