import { PRODUCTS, type Order } from './orders.js';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const product = (id: string) => PRODUCTS.find((p) => p.id === id)!;

const page = (title: string, body: string, refresh = false) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · Northwind Coffee</title>
${refresh ? '<meta http-equiv="refresh" content="1">' : ''}
<style>body{font:16px system-ui;max-width:40rem;margin:2rem auto;padding:0 1rem}button{font:inherit}li{margin:.3rem 0}</style>
</head><body><p><a href="/">Northwind Coffee</a></p>${body}</body></html>`;

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

export function homePage(orders: Order[]): string {
  const buttons = PRODUCTS.map((p) => `<li>${escape(p.name)}, $${p.price.toFixed(2)} <button name="product" value="${p.id}">Buy ${escape(p.name)}</button></li>`);
  const list = orders.map((o) => `<li><a href="/orders/${o.id}">${o.id}</a>: ${escape(product(o.productId).name)}, ${STATUS_TEXT[o.status]}</li>`);
  return page(
    'Shop',
    `<h1>Northwind Coffee</h1>
    <form method="post" action="/buy">
      <label>Email for the receipt <input name="email" type="email" required value="ada@example.com"></label>
      <ul aria-label="Products">${buttons.join('')}</ul>
    </form>
    <h2>Orders</h2><ul aria-label="Orders">${list.join('') || '<li>None yet</li>'}</ul>`,
  );
}

export function orderPage(order: Order, error?: string): string {
  const counts = new Map<string, number>();
  for (const d of order.deliveries) counts.set(d.eventId, (counts.get(d.eventId) ?? 0) + 1);
  const events = [...new Map(order.deliveries.map((d) => [d.eventId, d])).values()]
    .map((d) => `<li data-event-type="${escape(d.type)}">${escape(d.type)} <code>${escape(d.eventId)}</code>, received ${counts.get(d.eventId)} time(s)</li>`)
    .join('');
  const canRefund = order.status === 'paid' || order.status === 'refund_failed';
  // Waiting for a webhook: refresh until it comes (a real shop would push or poll its own API).
  const waiting = order.status === 'awaiting_payment' || order.status === 'refund_requested';
  return page(
    order.id,
    `<h1>Order ${order.id}</h1>
    <p>${escape(product(order.productId).name)} for ${escape(order.email)}</p>
    ${error ? `<p role="alert">${escape(error)}</p>` : ''}
    <dl><dt>Status</dt><dd id="status">${STATUS_TEXT[order.status]}</dd>
    <dt>Fulfilments</dt><dd id="fulfilments">${order.fulfilments}</dd>
    ${order.disputeId ? `<dt>Dispute</dt><dd id="dispute"><code>${escape(order.disputeId)}</code></dd>` : ''}</dl>
    ${canRefund ? `<form method="post" action="/orders/${order.id}/refund"><button type="submit">Refund</button></form>` : ''}
    <h2>Webhook events</h2><ul aria-label="Webhook events">${events || '<li>None yet</li>'}</ul>`,
    waiting,
  );
}
