import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/**
 * Makes this process's global fetch trust the test CA (the API's and the example shop's certificates),
 * as NODE_EXTRA_CA_CERTS does for a merchant's process, so the kit is tested over real TLS with the
 * real fetch. Node ≥ 22.15 (the tests run on the npm registry's Node 24). The setting is process-wide and a
 * jest worker runs other files after this one (some check that an untrusted certificate is refused), so it
 * is registered in the calling file's beforeAll and taken back in its afterAll.
 */
export function trustTestCa(): void {
  let before: string[] = [];
  beforeAll(() => {
    const ca = readFileSync(process.env.TEST_TLS_CA!, 'utf8');
    before = tls.getCACertificates('default');
    if (!before.includes(ca)) tls.setDefaultCACertificates([...before, ca]);
  });
  afterAll(() => tls.setDefaultCACertificates(before));
}
