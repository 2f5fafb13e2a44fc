/** Card rules a processor applies before anything is charged. Pure functions over the card number. */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay' | 'unknown';

/** The Luhn (mod 10) check every real card number passes. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The brand from the number's leading digits (its issuer identification number). */
export function cardBrand(digits: string): CardBrand {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (digits.startsWith('6011') || two === 65 || (four >= 6440 && four <= 6499)) return 'discover';
  if (two === 36 || two === 38 || (four >= 3000 && four <= 3059)) return 'diners';
  if (four >= 3528 && four <= 3589) return 'jcb';
  if (two === 62) return 'unionpay';
  return 'unknown';
}

/** Spaces and dashes are how people type card numbers; they are not part of it. */
export const normaliseCardNumber = (input: string): string => input.replace(/[\s-]/g, '');
