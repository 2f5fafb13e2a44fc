// The live payment form with Stripe.js (docs/acquirer.md, The hosted page and Stripe.js). The customer's
// details go to the pay endpoint, with no card: its answer holds the PaymentIntent's client secret. The card is
// then typed into Stripe's Payment Element (Stripe's own frames) and the intent confirmed by Stripe.js in the
// browser, which runs 3-D Secure itself and comes back to the page. The card never reaches this service.
// A page served with the secret already (the card step: the details sent, the intent untried) opens at the card.
import { checkPayment } from './card-checks.js';
import { detailsBody, NOT_PAYABLE, postPay, SOMETHING_WRONG, UNREACHABLE } from './pay-request.js';

const DETAIL_FIELDS = ['email', 'name'];
const SHIPPING_FIELDS = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'];
const $ = (id) => document.getElementById(id);

const form = $('payment-form');
if (form) start(form);

function start(form) {
  const askShipping = form.dataset.askShipping === 'true';
  // The card step (the details sent before, the intent open and untried): the form holds no details.
  const resuming = Boolean(form.dataset.clientSecret);
  const fields = resuming ? [] : askShipping ? [...DETAIL_FIELDS, ...SHIPPING_FIELDS] : DETAIL_FIELDS;
  const button = $('pay-button');
  const label = button.textContent;
  const status = $('pay-status');
  const summary = $('form-errors');
  // Stripe.js failed to load (blocked, offline): nothing can be paid, and the customer is told so.
  if (typeof window.Stripe !== 'function') {
    showHeadline('The payment form could not be loaded. Please reload this page.');
    return;
  }
  const stripe = window.Stripe(form.dataset.stripeKey);
  // Set once the pay call has opened the intent: the next submit confirms it at Stripe.
  let confirmation = null;
  let elements = null;
  let busy = false;
  button.disabled = false;
  if (resuming) mountCard({ clientSecret: form.dataset.clientSecret, returnUrl: form.dataset.returnUrl });

  const values = () => Object.fromEntries(fields.map((f) => [f, $(f).value]));

  function showHeadline(text) {
    summary.replaceChildren();
    const p = document.createElement('p');
    p.textContent = text;
    summary.append(p);
    summary.focus();
  }

  function markFields(problems) {
    for (const field of fields) {
      const message = problems.find((p) => p.field === field)?.message ?? '';
      $(`${field}-error`).textContent = message;
      if (message) $(field).setAttribute('aria-invalid', 'true');
      else $(field).removeAttribute('aria-invalid');
    }
  }

  function setBusy(on, text = '') {
    busy = on;
    button.disabled = on;
    button.textContent = on ? 'Processing…' : label;
    form.setAttribute('aria-busy', String(on));
    status.textContent = text;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    if (confirmation) return confirm();
    // The card's own checks are Stripe's; only the details this form holds are checked here.
    const problems = checkPayment(values(), { askShipping }).filter((p) => fields.includes(p.field));
    markFields(problems);
    if (problems.length) {
      $(problems[0].field).focus();
      return;
    }
    setBusy(true, 'Preparing your payment…');
    await openPayment(values());
  });

  async function openPayment(v) {
    const { response, answer, unreachable } = await postPay(form.dataset.payUrl, detailsBody(v, askShipping));
    if (unreachable) {
      setBusy(false);
      return showHeadline(UNREACHABLE);
    }
    if (response.ok && answer?.success && answer.data.confirmation) return mountCard(answer.data.confirmation);
    if ((response.ok && answer?.success) || (response.status === 400 && NOT_PAYABLE.test(answer?.error?.message ?? ''))) {
      window.location.assign(answer?.data?.redirectUrl ?? form.dataset.pageUrl);
      return;
    }
    setBusy(false);
    markFields((answer?.error?.errors ?? []).map(({ path, message }) => ({ field: path?.[path.length - 1], message })));
    showHeadline(answer?.error?.message ?? SOMETHING_WRONG);
  }

  // The details are sent and fixed: the card is entered in Stripe's form, confirmed with the intent's secret.
  function mountCard(opened) {
    confirmation = opened;
    for (const field of fields) $(field).setAttribute('readonly', '');
    elements = stripe.elements({ clientSecret: opened.clientSecret });
    elements.create('payment').mount('#payment-element');
    setBusy(false, 'Enter your card details, then pay.');
  }

  async function confirm() {
    setBusy(true, 'Processing your payment. Please wait…');
    // Stripe redirects for 3-D Secure when it must, and comes back to `returnUrl`; otherwise it answers here.
    const result = await stripe.confirmPayment({ elements, confirmParams: { return_url: confirmation.returnUrl }, redirect: 'if_required' });
    if (result.error && result.error.type === 'validation_error') {
      setBusy(false);
      return showHeadline(result.error.message);
    }
    // Confirmed, declined or failed: the page, told of the return, shows what Stripe made of it.
    const intent = result.paymentIntent?.id ?? result.error?.payment_intent?.id ?? '';
    window.location.assign(`${confirmation.returnUrl}?payment_intent=${encodeURIComponent(intent)}`);
  }
}
