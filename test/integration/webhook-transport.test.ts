import { readFileSync } from 'node:fs';
import https from 'node:https';
import { createWebhookTransport, DELIVERY_TIMEOUT_MS } from '../../src/modules/webhooks/post-webhook.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

const headers = { 'Content-Type': 'application/json' };

describe('the HTTP attempt', () => {
  it('trusts a receiver whose CA comes from WEBHOOK_CA_FILE', async () => {
    const post = createWebhookTransport({ caFile: receiver.caFile, allowPrivateUrls: true });
    const url = receiver.url([{ status: 204 }]);
    const outcome = await post(url, headers, '{}');
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(receiver.at(url)).toHaveLength(1);
  });

  it('never skips certificate verification: without the CA the attempt fails and nothing is sent', async () => {
    const post = createWebhookTransport({ allowPrivateUrls: true });
    const url = receiver.url();
    const outcome = await post(url, headers, '{}');
    expect(outcome.ok).toBe(false);
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/certificate/i);
    expect(receiver.at(url)).toHaveLength(0);
  });

  it('checks the address again at delivery time and refuses a private one', async () => {
    const post = createWebhookTransport({ caFile: receiver.caFile, allowPrivateUrls: false });
    const byName = receiver.url();
    const named = await post(byName, headers, '{}');
    expect(named.error).toMatch(/^Refused: localhost resolves to a non-public address \(/);
    const byAddress = byName.replace('localhost', '127.0.0.1');
    expect((await post(byAddress, headers, '{}')).error).toBe('Refused: 127.0.0.1 resolves to a non-public address (127.0.0.1)');
    expect(receiver.at(byName)).toHaveLength(0);
  });

  it('gives up after its deadline (10 s by default)', async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const cert = readFileSync(process.env.TEST_TLS_CERT!);
    const key = readFileSync(process.env.TEST_TLS_KEY!);
    const silent = https.createServer({ cert, key }, () => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true, timeoutMs: 300 });
      const outcome = await post(`https://localhost:${(silent.address() as { port: number }).port}/`, headers, '{}');
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'Timed out after 0.3 s' });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
