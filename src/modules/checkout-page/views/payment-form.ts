import { COUNTRIES } from '../countries.view.js';
import { formatCents } from '../format.view.js';
import { flag, html, type Html } from '../html.view.js';
import type { CheckoutForPage } from '../../checkout/index.js';

interface FieldOptions {
  id: string;
  label: string;
  autocomplete: string;
  type?: string;
  inputmode?: string;
  value?: string;
  placeholder?: string;
  maxlength?: number;
  required?: boolean;
  className?: string;
}

/**
 * One labelled input with its error line (filled in by the script and tied to the input by
 * aria-describedby). Inputs carry no `name`: the form is never submitted natively, so card data can only
 * leave the page in the pay request's JSON body.
 */
function field(f: FieldOptions): Html {
  const required = f.required ?? true;
  return html`<div class="field ${f.className ?? ''}">
  <label for="${f.id}">${f.label}${required ? '' : html` <span class="optional">(optional)</span>`}</label>
  <input id="${f.id}" type="${f.type ?? 'text'}" autocomplete="${f.autocomplete}"${f.inputmode ? html` inputmode="${f.inputmode}"` : ''}${f.placeholder ? html` placeholder="${f.placeholder}"` : ''}${f.maxlength ? html` maxlength="${f.maxlength}"` : ''} value="${f.value ?? ''}" aria-describedby="${f.id}-error"${flag('required', required)} spellcheck="false">
  <p class="field-error" id="${f.id}-error"></p>
</div>`;
}

function countrySelect(): Html {
  return html`<div class="field">
  <label for="country">Country</label>
  <select id="country" autocomplete="country" aria-describedby="country-error" required>
    <option value="">Choose a country</option>
    ${COUNTRIES.map(([code, name]) => html`<option value="${code}">${name}</option>`)}
  </select>
  <p class="field-error" id="country-error"></p>
</div>`;
}

function shippingFields(): Html {
  return html`<fieldset class="group">
  <legend>Shipping address</legend>
  ${field({ id: 'addressLine1', label: 'Address line 1', autocomplete: 'shipping address-line1' })}
  ${field({ id: 'addressLine2', label: 'Address line 2', autocomplete: 'shipping address-line2', required: false })}
  <div class="row">
    ${field({ id: 'city', label: 'City', autocomplete: 'shipping address-level2' })}
    ${field({ id: 'state', label: 'State / region', autocomplete: 'shipping address-level1' })}
  </div>
  <div class="row">
    ${field({ id: 'postalCode', label: 'Postal code', autocomplete: 'shipping postal-code' })}
    ${countrySelect()}
  </div>
</fieldset>`;
}

/** Live mode with Stripe: the publishable key Stripe.js is started with, and where it is loaded from. */
export interface StripeOnPage {
  publishableKey: string;
  jsUrl: string;
  /** The details are sent and the intent opened, untried: the page opens at the card (card-step.service.ts). */
  cardStep?: CardStep;
}

/** What the page confirms the session's opened PaymentIntent with: its secret, and where Stripe sends the customer back. */
export interface CardStep {
  clientSecret: string;
  returnUrl: string;
}

/**
 * The form of a session whose details were sent and whose intent is open but untried: the card alone, in
 * Stripe's frames, confirmed with the secret the page carries. No Cancel: the session is already `processing`.
 */
function cardStepForm({ session, business }: CheckoutForPage, stripe: StripeOnPage, step: CardStep): Html {
  return html`<section class="pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">Pay ${business.name}</h2>
<form id="payment-form" class="payment-form" method="post" novalidate
  data-page-url="/checkout/${session.id}" data-stripe-key="${stripe.publishableKey}"
  data-client-secret="${step.clientSecret}" data-return-url="${step.returnUrl}">
  <div id="form-errors" class="form-errors" role="alert" tabindex="-1"></div>
  <p class="notice">Receipt for ${session.customerEmail}. Enter your card to finish paying.</p>
  <fieldset class="group">
    <legend>Card details</legend>
    <div id="payment-element" class="payment-element" aria-live="polite"></div>
    <p class="notice">Your card details are entered in Stripe's secure form and go to Stripe directly.</p>
  </fieldset>
  <noscript><p class="notice">Paying needs JavaScript. Please turn it on and reload this page.</p></noscript>
  <button type="submit" id="pay-button" class="pay-button" disabled>Pay ${formatCents(session.total)}</button>
  <p id="pay-status" class="pay-status" role="status"></p>
</form>
</section>`;
}

/**
 * The card as Stripe.js takes it: the Payment Element is mounted here once the pay call has opened the
 * PaymentIntent, in Stripe's own frames, so the card number is typed into Stripe and never into this page.
 */
function stripeCardFields(): Html {
  return html`<fieldset class="group">
    <legend>Card details</legend>
    ${field({ id: 'name', label: 'Name on card', autocomplete: 'cc-name' })}
    <div id="payment-element" class="payment-element" aria-live="polite"></div>
    <p class="notice">Your card details are entered in Stripe's secure form and go to Stripe directly.</p>
  </fieldset>`;
}

/** The payable form of a pending session, and the Cancel form beside it; or the card step of one already sent. */
export function paymentForm(view: CheckoutForPage, stripe?: StripeOnPage): Html {
  if (stripe?.cardStep) return cardStepForm(view, stripe, stripe.cardStep);
  const { session, business } = view;
  const businessName = business.name;
  const total = formatCents(session.total);
  return html`<section class="pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">Pay ${businessName}</h2>
<form id="payment-form" class="payment-form" method="post" novalidate
  data-pay-url="/api/checkout/${session.id}/pay" data-page-url="/checkout/${session.id}"
  data-ask-shipping="${String(session.askShipping)}"${stripe ? html` data-stripe-key="${stripe.publishableKey}"` : ''}>
  <div id="form-errors" class="form-errors" role="alert" tabindex="-1"></div>
  <fieldset class="group">
    <legend>Contact</legend>
    ${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'email', inputmode: 'email', value: session.customerEmail })}
  </fieldset>
  ${stripe ? stripeCardFields() : html`<fieldset class="group">
    <legend>Card details</legend>
    ${field({ id: 'number', label: 'Card number', autocomplete: 'cc-number', inputmode: 'numeric', placeholder: '1234 1234 1234 1234', maxlength: 23 })}
    <div class="row">
      ${field({ id: 'expiry', label: 'Expiry (MM / YY)', autocomplete: 'cc-exp', inputmode: 'numeric', placeholder: 'MM / YY', maxlength: 9 })}
      ${field({ id: 'cvc', label: 'Security code (CVC)', autocomplete: 'cc-csc', inputmode: 'numeric', placeholder: '123', maxlength: 4 })}
    </div>
    ${field({ id: 'name', label: 'Name on card', autocomplete: 'cc-name' })}
  </fieldset>`}
  ${session.askShipping ? shippingFields() : ''}
  <noscript><p class="notice">Paying needs JavaScript. Please turn it on and reload this page.</p></noscript>
  <button type="submit" id="pay-button" class="pay-button" disabled>Pay ${total}</button>
  <p id="pay-status" class="pay-status" role="status"></p>
</form>
<form class="cancel-form" method="post" action="/checkout/${session.id}/cancel">
  <button type="submit" class="link-button">Cancel and return to ${businessName}</button>
</form>
</section>`;
}
