// What both payment forms send to the pay endpoint, and how: the customer's details (and the shipping
// address when the session asks for one) posted as JSON, with no cookies and nothing cached. The test
// form adds the card to the body; the live form sends none (Stripe.js collects it).

/** The pay call's answer when the session can no longer be paid: the page itself then says why. */
export const NOT_PAYABLE = /^Cannot pay a checkout session/;

/** The details every pay body carries, from the form's values (trimmed; an empty second line left out). */
export function detailsBody(v, askShipping) {
  const body = { name: v.name.trim(), email: v.email.trim() };
  if (askShipping) {
    body.shipping = {
      addressLine1: v.addressLine1.trim(),
      ...(v.addressLine2.trim() ? { addressLine2: v.addressLine2.trim() } : {}),
      city: v.city.trim(),
      state: v.state.trim(),
      postalCode: v.postalCode.trim(),
      country: v.country,
    };
  }
  return body;
}

/**
 * Posts the body to the pay endpoint. Resolves with the response and its JSON (null if it had none), or
 * with `{ unreachable: true }` when the request never got an answer (offline, connection dropped).
 */
export async function postPay(url, body) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    return { response, answer: await response.json().catch(() => null) };
  } catch {
    return { unreachable: true };
  }
}

export const UNREACHABLE = 'We could not reach the payment service. Check your connection and try again.';
export const SOMETHING_WRONG = 'Something went wrong. Please reload this page before trying again.';
