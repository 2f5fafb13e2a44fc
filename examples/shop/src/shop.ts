import Router from '@koa/router';
import type { PaymentsClient } from '@payments/client';
import { constructEvent, WebhookVerificationError } from '@payments/webhooks';
import Koa from 'koa';
import { OrderBook, PRODUCTS, type Order } from './orders.js';
import { homePage, orderPage } from './views.js';

export interface ShopOptions {
  payments: PaymentsClient;
  /** The shop's own origin as the browser and the payments service reach it, e.g. https://shop.example. */
  publicUrl: string;
  /** The webhook endpoint's signing secret (`whsec_…`); a function, as the shop may learn it after start. */
  webhookSecret: () => string;
  /** Called once per paid order: pack it, ship it, send the receipt. */
  fulfil?: (order: Order) => void;
}

export const WEBHOOK_PATH = '/webhooks/payments';

/** The raw request body: signatures are over the exact bytes, so no body parser runs before this. */
async function rawBody(ctx: Koa.Context, limit = 1_000_000): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) ctx.throw(413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const form = async (ctx: Koa.Context) => new URLSearchParams((await rawBody(ctx, 10_000)).toString('utf8'));

export function createShop({ payments, publicUrl, webhookSecret, fulfil = () => undefined }: ShopOptions) {
  const orders = new OrderBook();
  const router = new Router();
  const html = (ctx: Koa.Context, body: string, status = 200) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };

  router.get('/', (ctx) => html(ctx, homePage(orders.all())));

  // 1. Create a checkout session with the client and send the browser to the hosted page.
  router.post('/buy', async (ctx) => {
    const fields = await form(ctx);
    const product = PRODUCTS.find((p) => p.id === fields.get('product'));
    if (!product) return html(ctx, 'Unknown product', 400);
    const order = orders.create(product.id, fields.get('email') ?? '');
    const session = await payments.checkoutSessions.create({
      description: `Order ${order.id}`,
      customer: { email: order.email },
      items: [{ name: product.name, price: product.price, quantity: 1 }],
      urls: { success: `${publicUrl}/orders/${order.id}`, failure: `${publicUrl}/orders/${order.id}`, cancel: `${publicUrl}/` },
      metadata: { orderId: order.id },
    });
    order.sessionId = session.id;
    ctx.redirect(session.checkoutUrl);
  });

  // 2. Back from the hosted page: show the order. It is paid only once the webhook says so.
  router.get('/orders/:id', (ctx) => {
    const order = orders.get(ctx.params.id);
    if (!order) return html(ctx, 'No such order', 404);
    html(ctx, orderPage(order));
  });

  // 3. Refund with the client; the outcome arrives as refund.completed (or refund.failed).
  router.post('/orders/:id/refund', async (ctx) => {
    const order = orders.get(ctx.params.id);
    if (!order?.sessionId) return html(ctx, 'No such order', 404);
    try {
      const refund = await payments.refunds.create({ checkoutSessionId: order.sessionId, reason: 'requested_by_customer' });
      order.refundId = refund.id;
      order.status = 'refund_requested';
      ctx.redirect(`/orders/${order.id}`);
    } catch (error) {
      // A PaymentsApiError carries the API's message ("Refund already exists for this session", …).
      html(ctx, orderPage(order, error instanceof Error ? error.message : String(error)), 400);
    }
  });

  // 4. Webhooks: verify against the raw body, then apply; any 2xx acknowledges, 400 refuses a forgery.
  router.post(WEBHOOK_PATH, async (ctx) => {
    const body = await rawBody(ctx);
    try {
      const event = constructEvent(body, ctx.get('X-Webhook-Signature'), webhookSecret());
      orders.apply(event, fulfil, ctx.get('X-Webhook-Delivery-Id'));
      ctx.status = 200;
      ctx.body = { received: true };
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      ctx.status = 400;
      ctx.body = { error: error.code };
    }
  });

  const app = new Koa();
  app.use(router.routes()).use(router.allowedMethods());
  return { app, orders };
}
