// Client-side checks of the payment form. Pure functions, shared by the browser (as an ES module) and
// the unit tests; the server and the processor check everything again.

/** Digits only: customers type spaces and dashes in card numbers. */
export function digitsOf(text) {
  return String(text).replace(/[\s-]/g, '');
}

/** The Luhn checksum over a 12-19 digit card number. */
export function luhnValid(number) {
  const digits = digitsOf(number);
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** `MM/YY`, `MM / YYYY`, `MMYY`: `{month, year}` with a four-digit year, or null. */
export function parseExpiry(text) {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(String(text));
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** A card is good through the last day of its expiry month. */
export function expiryInFuture(expiry, now = new Date()) {
  const year = now.getFullYear();
  const month = now.getMonth() + 1;
  return expiry.year > year || (expiry.year === year && expiry.month >= month);
}

export function cvcValid(text) {
  return /^\d{3,4}$/.test(String(text).trim());
}

export function emailValid(text) {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(text).trim());
}

/**
 * Every problem with the form's values, as `{field, message}` in the form's order; empty when it may
 * be sent. `values` holds the raw strings of the inputs by field name.
 */
export function checkPayment(values, { askShipping }, now = new Date()) {
  const problems = [];
  const add = (field, message) => problems.push({ field, message });
  const blank = (field) => !String(values[field] ?? '').trim();

  if (blank('email')) add('email', 'Enter your email address.');
  else if (!emailValid(values.email)) add('email', 'Enter a valid email address, like name@example.com.');

  if (blank('number')) add('number', 'Enter your card number.');
  else if (!luhnValid(values.number)) add('number', 'Your card number is invalid.');

  const expiry = parseExpiry(values.expiry ?? '');
  if (blank('expiry')) add('expiry', 'Enter the expiry date.');
  else if (!expiry) add('expiry', 'Enter the expiry date as MM / YY.');
  else if (!expiryInFuture(expiry, now)) add('expiry', 'Your card has expired.');

  if (blank('cvc')) add('cvc', 'Enter the security code.');
  else if (!cvcValid(values.cvc)) add('cvc', 'The security code is 3 or 4 digits.');

  if (blank('name')) add('name', 'Enter the name on the card.');

  if (askShipping) {
    if (blank('addressLine1')) add('addressLine1', 'Enter your street address.');
    if (blank('city')) add('city', 'Enter your city.');
    if (blank('state')) add('state', 'Enter your state or region.');
    if (blank('postalCode')) add('postalCode', 'Enter your postal code.');
    if (!/^[A-Z]{2}$/.test(String(values.country ?? ''))) add('country', 'Choose your country.');
  }
  return problems;
}
