// The payment form: checks the inputs, then sends them to the pay endpoint as JSON with fetch and goes
// where the answer says. Card details leave the page only in that request's body: the inputs carry no
// `name`, and the submit button is enabled only here, so the form can never be submitted natively.
import { checkPayment, digitsOf, parseExpiry } from './card-checks.js';
import { detailsBody, NOT_PAYABLE, postPay, SOMETHING_WRONG, UNREACHABLE } from './pay-request.js';

const CARD_FIELDS = ['email', 'number', 'expiry', 'cvc', 'name'];
const SHIPPING_FIELDS = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'];
const $ = (id) => document.getElementById(id);

const form = $('payment-form');
if (form) start(form);

function start(form) {
  const askShipping = form.dataset.askShipping === 'true';
  const fields = askShipping ? [...CARD_FIELDS, ...SHIPPING_FIELDS] : CARD_FIELDS;
  const button = $('pay-button');
  const label = button.textContent;
  const status = $('pay-status');
  const summary = $('form-errors');
  let busy = false;
  button.disabled = false;

  const values = () => Object.fromEntries(fields.map((f) => [f, $(f).value]));
  const problemsNow = () => checkPayment(values(), { askShipping });

  function markField(field, message) {
    const input = $(field);
    const error = $(`${field}-error`);
    if (!input || !error) return;
    error.textContent = message ?? '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  function showProblems(problems, headline) {
    for (const field of fields) markField(field, problems.find((p) => p.field === field)?.message);
    summary.replaceChildren();
    if (!problems.length && !headline) return;
    const title = document.createElement('p');
    title.textContent = headline ?? 'Please correct the highlighted fields.';
    summary.append(title);
    if (problems.length) {
      const list = document.createElement('ul');
      for (const p of problems) {
        const item = document.createElement('li');
        const link = document.createElement('a');
        link.href = `#${p.field}`;
        link.textContent = p.message;
        item.append(link);
        list.append(item);
      }
      summary.append(list);
    }
  }

  function setBusy(on, text = '') {
    busy = on;
    button.disabled = on;
    button.textContent = on ? 'Processing…' : label;
    form.setAttribute('aria-busy', String(on));
    status.textContent = text;
  }

  // After a failed check, a field's message follows the customer's corrections as they type.
  form.addEventListener('input', (event) => {
    const field = event.target.id;
    if (event.target.getAttribute('aria-invalid') !== 'true') return;
    markField(field, problemsNow().find((p) => p.field === field)?.message);
  });
  $('number').addEventListener('input', (event) => groupDigits(event, 4, ' ', 19));
  $('expiry').addEventListener('input', (event) => slashExpiry(event));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const problems = problemsNow();
    showProblems(problems);
    if (problems.length) {
      $(problems[0].field).focus();
      return;
    }
    setBusy(true, 'Processing your payment. Please wait…');
    await pay(values());
  });

  async function pay(v) {
    const expiry = parseExpiry(v.expiry);
    const card = { number: digitsOf(v.number), expMonth: expiry.month, expYear: expiry.year, cvc: v.cvc.trim() };
    const { response, answer, unreachable } = await postPay(form.dataset.payUrl, { card, ...detailsBody(v, askShipping) });
    if (unreachable) {
      setBusy(false);
      showProblems([], UNREACHABLE);
      summary.focus();
      return;
    }
    if (response.ok && answer?.success) {
      status.textContent = 'Payment sent. Taking you to the next page…';
      // The business's success or failure page, or this page, which now shows the receipt or failure.
      window.location.assign(answer.data.redirectUrl ?? form.dataset.pageUrl);
      return;
    }
    const error = answer?.error;
    if (response.status === 400 && error && NOT_PAYABLE.test(error.message)) {
      window.location.assign(form.dataset.pageUrl);
      return;
    }
    setBusy(false);
    const problems = (error?.errors ?? []).map(serverProblem).filter((p) => p && fields.includes(p.field));
    showProblems(problems, error?.message ?? SOMETHING_WRONG);
    summary.focus();
  }
}

/** A server field error (`path` such as ['card', 'number']) as a problem on one of our inputs. */
function serverProblem({ path, message }) {
  if (!Array.isArray(path) || !path.length) return null;
  const [head, second] = path;
  if (head === 'card') return { field: second === 'expMonth' || second === 'expYear' ? 'expiry' : second, message };
  if (head === 'shipping') return { field: second, message };
  return { field: head, message };
}

/** Groups digits as typed ("4242 4242 …"), only when typing at the end so the caret never jumps. */
function groupDigits(event, size, separator, maxDigits) {
  const input = event.target;
  if (!event.inputType?.startsWith('insert') || input.selectionStart !== input.value.length) return;
  const digits = input.value.replace(/\D/g, '').slice(0, maxDigits);
  input.value = digits.replace(new RegExp(`(\\d{${size}})(?=\\d)`, 'g'), `$1${separator}`);
}

/** "12" becomes "12 / " as the month is typed. */
function slashExpiry(event) {
  const input = event.target;
  if (!event.inputType?.startsWith('insert') || input.selectionStart !== input.value.length) return;
  if (/^\d{2}$/.test(input.value)) input.value = `${input.value} / `;
  else if (/^\d{3}$/.test(input.value)) input.value = `${input.value.slice(0, 2)} / ${input.value.slice(2)}`;
}
