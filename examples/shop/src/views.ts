import { PRODUCTS, type Order } from './orders.js';
import { STYLE } from './style.js';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const product = (id: string) => PRODUCTS.find((p) => p.id === id)!;
const price = (dollars: number) => `$${dollars.toFixed(2)}`;

const page = (title: string, body: string, refresh = false) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Northwind Coffee</title>
${refresh ? '<meta http-equiv="refresh" content="1">' : ''}
<style>${STYLE}</style>
</head><body><header><div class="bar"><a href="/">Northwind Coffee</a><span>Roasted this week, sent tomorrow</span></div></header>
<main>${body}</main></body></html>`;

export const STATUS_TEXT: Record<Order['status'], string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Paid',
  payment_failed: 'Payment failed',
  refund_requested: 'Refund requested',
  refunded: 'Refunded',
  refund_failed: 'Refund failed',
  disputed: 'Disputed',
  dispute_won: 'Dispute won',
  dispute_lost: 'Dispute lost',
  inquiry_closed: 'Inquiry closed',
};

const statusBadge = (order: Order, id?: string) =>
  `<span class="status ${order.status}"${id ? ` id="${id}"` : ''}>${STATUS_TEXT[order.status]}</span>`;

export function homePage(orders: Order[]): string {
  const cards = PRODUCTS.map(
    (p) => `<li class="product"><span class="name">${escape(p.name)}</span><span class="price">${price(p.price)}</span>
      <button name="product" value="${p.id}" aria-label="Buy ${escape(p.name)}">Buy</button></li>`,
  );
  const rows = orders.map(
    (o) => `<tr><td><a href="/orders/${o.id}">${o.id}</a></td><td>${escape(product(o.productId).name)}</td><td>${statusBadge(o)}</td></tr>`,
  );
  return page(
    'Shop',
    `<h1>Fresh coffee, paid securely</h1>
    <form method="post" action="/buy">
      <label>Email for the receipt <input name="email" type="email" required value="ada@example.com"></label>
      <ul class="products" aria-label="Products">${cards.join('')}</ul>
    </form>
    <h2>Orders</h2>
    ${rows.length ? `<table aria-label="Orders"><tr><th>Order</th><th>Product</th><th>Status</th></tr>${rows.join('')}</table>` : '<p class="muted">None yet.</p>'}`,
  );
}

export function orderPage(order: Order, error?: string): string {
  // One row per delivery: a repeated event shows again under the same event id, with a delivery id of its own.
  const rows = order.deliveries
    .map(
      (d) =>
        `<tr data-event-type="${escape(d.type)}"><td>${escape(d.type)}</td><td><code>${escape(d.eventId)}</code></td>` +
        `<td><code>${escape(d.deliveryId)}</code></td><td>${escape(d.at.slice(11, 19))}</td></tr>`,
    )
    .join('');
  const paid = order.deliveries.find((d) => d.type === 'checkout.succeeded')?.event.payload as { amountInDecimals?: string } | undefined;
  const canRefund = order.status === 'paid' || order.status === 'refund_failed';
  // Waiting for a webhook: refresh until it comes (a real shop would push or poll its own API).
  const waiting = order.status === 'awaiting_payment' || order.status === 'refund_requested';
  const item = product(order.productId);
  return page(
    order.id,
    `<h1>Order ${order.id}</h1>
    ${error ? `<p role="alert">${escape(error)}</p>` : ''}
    <div class="card">
      <dl><dt>Item</dt><dd>${escape(item.name)}, ${price(item.price)}</dd>
      <dt>Receipt to</dt><dd>${escape(order.email)}</dd>
      <dt>Status</dt><dd>${statusBadge(order, 'status')}</dd>
      ${paid?.amountInDecimals ? `<dt>Customer paid</dt><dd>$${escape(paid.amountInDecimals)} (the price plus the processing fee)</dd>` : ''}
      <dt>Fulfilments</dt><dd id="fulfilments">${order.fulfilments}</dd>
      ${order.disputeId ? `<dt>Dispute</dt><dd id="dispute"><code>${escape(order.disputeId)}</code></dd>` : ''}</dl>
      ${canRefund ? `<form method="post" action="/orders/${order.id}/refund"><button class="secondary" type="submit">Refund</button></form>` : ''}
    </div>
    <h2>Webhook deliveries</h2>
    ${rows ? `<table aria-label="Webhook deliveries"><tr><th>Event</th><th>Event id</th><th>Delivery id</th><th>Received (UTC)</th></tr>${rows}</table>` : '<p class="muted">None yet: the order is paid when <code>checkout.succeeded</code> arrives.</p>'}`,
    waiting,
  );
}
