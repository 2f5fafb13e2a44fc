import { type CheckoutSession, type CheckoutForPage, paymentRedirectUrl } from '../../checkout/index.js';
import { showsCustomerDetails } from '../customer-details.rules.js';
import { formatCents, formatDate } from '../format.view.js';
import { html, type Html } from '../html.view.js';
import { layout } from './layout.js';
import { orderSummary } from './order-summary.js';
import { paymentForm, type StripeOnPage } from './payment-form.js';

/** What the page shows for a session, by status. Only a pending, unexpired session is payable. */
export type PageState = 'payable' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'refunded';

export function pageState(session: CheckoutSession, now: Date): PageState {
  switch (session.status) {
    case 'pending':
      // The expiry workflow cancels it shortly; until then it must not be paid either.
      return session.expiresAt.getTime() <= now.getTime() ? 'expired' : 'payable';
    case 'cancelled':
      // The expiry activity cancels at or after expiresAt; a customer's Cancel comes before it.
      return session.updatedAt.getTime() >= session.expiresAt.getTime() ? 'expired' : 'cancelled';
    default:
      return session.status;
  }
}

const PROCESSING_REFRESH_SECONDS = 3;

function stateCard(kind: PageState, heading: string, lines: (Html | string)[], next?: Html): Html {
  return html`<section class="state state--${kind}" aria-labelledby="state-heading" data-state="${kind}">
  <h1 id="state-heading">${heading}</h1>
  ${lines.map((line) => html`<p>${line}</p>`)}
  ${next ?? ''}
</section>`;
}

/**
 * A way back to the business after a final outcome, for a customer who lands here rather than on its
 * page (the payment outlasted the pay request, or the link was opened again later).
 */
function continueLink(view: CheckoutForPage): Html | undefined {
  const url = paymentRedirectUrl(view.session);
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  return html`<p class="continue"><a href="${url}">Continue to ${view.business.name}</a></p>`;
}

const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  unknown: 'Card',
};

function cardLine(session: CheckoutSession): string | null {
  if (!session.cardLast4) return null;
  const brand = session.cardBrand ? (BRAND_NAMES[session.cardBrand.toLowerCase()] ?? session.cardBrand) : 'Card';
  return `${brand} ending in ${session.cardLast4}`;
}

/** Who paid and with what card, while the page may still say it (customer-details.rules.ts). */
function customerLines(session: CheckoutSession, now: Date): string[] {
  if (!showsCustomerDetails(session, now)) return ['The card and e-mail address are no longer shown for this payment.'];
  return [...(cardLine(session) ? [`Charged to ${cardLine(session)}.`] : []), `Receipt for ${session.customerEmail}.`];
}

function stateMain(view: CheckoutForPage, state: Exclude<PageState, 'payable'>, now: Date): Html {
  const { session } = view;
  const businessName = view.business.name;
  const total = formatCents(session.total);
  switch (state) {
    case 'completed':
      return stateCard(state, 'Payment successful', [
        `You paid ${total} to ${businessName}.`,
        ...(session.completedAt ? [`Paid on ${formatDate(session.completedAt)}.`] : []),
        ...customerLines(session, now),
        `Reference ${session.id}`,
      ], continueLink(view));
    case 'failed':
      return stateCard(state, 'Payment failed', [
        session.failureMessage ?? 'Your payment could not be completed.',
        `You have not been charged. Please contact ${businessName} to try again.`,
      ], continueLink(view));
    case 'processing':
      return stateCard(state, 'Payment in progress', [
        `Your payment of ${total} is being processed. Please do not pay again.`,
        'This page updates by itself.',
      ]);
    case 'cancelled':
      return stateCard(state, 'Checkout cancelled', ['This checkout was cancelled. No payment was taken.']);
    case 'expired':
      return stateCard(state, 'Checkout expired', ['This checkout has expired. No payment was taken.']);
    case 'refunded':
      return stateCard(state, 'Payment refunded', [`Your payment of ${total} to ${businessName} was refunded.`]);
  }
}

/** The whole page of a session: the payment form when payable (or the card step of a live one sent and untried), otherwise its state and never a form. */
export function checkoutPage(view: CheckoutForPage, now = new Date(), stripe?: StripeOnPage): { state: PageState; body: string } {
  const { session, items } = view;
  const businessName = view.business.name;
  const state = pageState(session, now);
  // A live session whose details were sent and whose intent waits, untried, for the card: the form again.
  if (state === 'payable' || (state === 'processing' && stripe?.cardStep)) {
    const main = html`<h1 class="visually-hidden">Checkout</h1>
<div class="checkout">${orderSummary(session, items)}${paymentForm(view, stripe)}</div>`;
    return { state, body: layout({ title: 'Checkout', businessName, livemode: session.livemode, main, script: true, stripeJsUrl: stripe?.jsUrl }) };
  }
  const heading = state === 'completed' ? 'Receipt' : 'Order summary';
  const main = html`<div class="checkout checkout--closed">${stateMain(view, state, now)}${orderSummary(session, items, heading)}</div>`;
  return {
    state,
    body: layout({
      title: stateTitle[state],
      businessName,
      livemode: session.livemode,
      main,
      refreshSeconds: state === 'processing' ? PROCESSING_REFRESH_SECONDS : undefined,
    }),
  };
}

const stateTitle: Record<Exclude<PageState, 'payable'>, string> = {
  completed: 'Payment successful',
  failed: 'Payment failed',
  processing: 'Payment in progress',
  cancelled: 'Checkout cancelled',
  expired: 'Checkout expired',
  refunded: 'Payment refunded',
};

/** A page of its own for a path that names no session (404) or a fault (500): HTML, never JSON. */
export function messagePage(status: 404 | 405 | 429 | 500 | 503): string {
  const text = {
    404: ['Checkout not found', 'This checkout link is not valid. Please check the link or return to the shop.'],
    405: ['Not allowed', 'This page cannot be used that way.'],
    429: ['Too many requests', 'Too many requests came from your network. Please wait a minute, then try again.'],
    500: ['Something went wrong', 'We could not show this checkout. Please try again in a moment.'],
    503: ['Temporarily unavailable', 'We could not show this checkout. Please try again in a moment.'],
  }[status];
  const main = html`<section class="state state--message" aria-labelledby="state-heading">
  <h1 id="state-heading">${text[0]}</h1>
  <p>${text[1]}</p>
</section>`;
  return layout({ title: text[0], main });
}
