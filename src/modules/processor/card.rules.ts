/** Card rules, applied once where the pay call parses the card (`parseCard`), before any processor sees it. Pure functions over the card number. */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay' | 'unknown';

/** A card as the pay call's body gives it (digits only, expiry in range: pay.schemas.ts). */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

/**
 * A card whose number passed Luhn, with its brand and last four read from it once: what a processor's
 * `tokenize` takes, so no adapter checks or reads the number again.
 */
export interface ParsedCard extends CardDetails {
  readonly brand: CardBrand;
  readonly last4: string;
}

/** What the pay call answers, on `card.number`, for a number that fails Luhn (a processor refusing it says the same). */
export const INVALID_CARD_NUMBER = 'Card number is invalid';

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

/** The card with its brand and last four, or null when its number fails Luhn (`INVALID_CARD_NUMBER`). */
export function parseCard(card: CardDetails): ParsedCard | null {
  if (!passesLuhn(card.number)) return null;
  return { ...card, brand: cardBrand(card.number), last4: card.number.slice(-4) };
}
