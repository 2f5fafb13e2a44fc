import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createPaymentsClient } from '@payments/client';
import { createShop, WEBHOOK_PATH } from './shop.js';

export interface StartShopOptions {
  apiKey: string;
  apiBaseUrl: string;
  port: number;
  tls: { cert: Buffer; key: Buffer };
  /** The endpoint's signing secret; without one the shop registers its endpoint and keeps the secret. */
  webhookSecret?: string;
  host?: string;
  /** The fetch under the shop's payments client; the global one by default. */
  fetch?: typeof fetch;
}

/** The shop over HTTPS, with its webhook endpoint registered when it has no secret yet. */
export async function startShop(options: StartShopOptions) {
  const payments = createPaymentsClient({ apiKey: options.apiKey, baseUrl: options.apiBaseUrl, fetch: options.fetch });
  let secret = options.webhookSecret ?? '';
  const server = https.createServer(options.tls);
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  const shop = createShop({ payments, publicUrl: origin, webhookSecret: () => secret });
  server.on('request', shop.app.callback());

  const webhookUrl = `${origin}${WEBHOOK_PATH}`;
  if (!secret) {
    // Once per shop, normally a deploy step; the secret is shown only at creation. An endpoint an earlier
    // start registered at this URL has a secret this process never saw: its deliveries would all fail
    // verification, so it goes first.
    for (const endpoint of await payments.webhookEndpoints.list().toArray()) {
      if (endpoint.url === webhookUrl) await payments.webhookEndpoints.delete(endpoint.id);
    }
    const created = await payments.webhookEndpoints.create({
      url: webhookUrl,
      events: ['checkout.succeeded', 'checkout.failed', 'refund.created', 'refund.completed', 'refund.failed', 'dispute.created', 'dispute.closed'],
      description: 'Example shop: fulfilment, refunds and disputes',
    });
    secret = created.secret!;
  }
  return {
    origin,
    webhookUrl,
    orders: shop.orders,
    payments,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
