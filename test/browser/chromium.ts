/**
 * Debian's chromium (which `npm test` installs: scripts/provision-chromium.sh) driven by playwright-core,
 * trusting the test certificate properly: the API's (and the stand-in merchant's) leaf key is pinned
 * with --ignore-certificate-errors-spki-list, which Chromium honours only with an explicit
 * user-data-dir, so each launch gets a fresh one. No ignoreHTTPSErrors: any other certificate problem
 * still fails the test.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** base64(SHA-256(SubjectPublicKeyInfo)) of a PEM certificate: the form Chromium's SPKI list takes. */
export function spkiHash(certPem: string | Buffer): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** `certFile`: the leaf certificate to trust (default: the test run's); a fresh clone's `npm start` makes its own. */
export async function launchChromium(certFile = process.env.TEST_TLS_CERT!): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  // `npm test` installs it (scripts/provision-chromium.sh) when it may; say so rather than Playwright's bare ENOENT.
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no browser at ${CHROMIUM}: run npm test as root once, or: sudo apt-get update && sudo apt-get install -y chromium`);
  }
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'checkout-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(certFile))}`,
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A stand-in for the business's own site (success, failure and cancel pages) over HTTPS on localhost,
 * with the test certificate, so the browser really lands there.
 */
export async function startMerchantSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = https.createServer(
    { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) },
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Shop</title><h1>Back at the shop</h1>');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
