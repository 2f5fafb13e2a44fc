import type { CheckoutSession, SessionItem } from '../../checkout/index.js';
import { formatCents } from '../format.view.js';
import { html, type Html } from '../html.view.js';

/** Only http(s) image URLs are rendered (the API accepts no other, but the page does not rely on it). */
const isWebUrl = (url: string | null | undefined): url is string => Boolean(url && /^https?:\/\//i.test(url));

function itemRow(item: SessionItem): Html {
  const image = isWebUrl(item.imageUrl)
    ? html`<img class="item-image" src="${item.imageUrl}" alt="" width="56" height="56" loading="lazy" decoding="async">`
    : html`<span class="item-image item-image--none" aria-hidden="true">${item.name.slice(0, 1).toUpperCase()}</span>`;
  return html`<li class="item">
  ${image}
  <div class="item-text">
    <p class="item-name">${item.name}</p>
    ${item.description ? html`<p class="item-description">${item.description}</p>` : ''}
    <p class="item-quantity">Qty ${item.quantity} × ${formatCents(item.price)}</p>
  </div>
  <p class="item-amount">${formatCents(item.subtotal)}</p>
</li>`;
}

/** Line items and the session's subtotal, fees and total, as stored on the session (never recomputed). */
export function orderSummary(session: CheckoutSession, items: SessionItem[], heading = 'Order summary'): Html {
  return html`<section class="summary" aria-labelledby="summary-heading">
  <h2 id="summary-heading">${heading}</h2>
  <p class="description">${session.description}</p>
  <ul class="items" aria-label="Items">
    ${items.map(itemRow)}
  </ul>
  <dl class="totals">
    <div><dt>Subtotal</dt><dd>${formatCents(session.subtotal)}</dd></div>
    <div><dt>Fees</dt><dd>${formatCents(session.fee)}</dd></div>
    <div class="grand-total"><dt>Total</dt><dd>${formatCents(session.total)} <span class="currency">${session.currency}</span></dd></div>
  </dl>
</section>`;
}
