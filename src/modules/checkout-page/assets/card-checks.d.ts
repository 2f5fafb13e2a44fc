// Types of card-checks.js, which is served to the browser as is and imported by the unit tests.
export interface Expiry {
  month: number;
  year: number;
}
export interface Problem {
  field: string;
  message: string;
}
export function digitsOf(text: string): string;
export function luhnValid(number: string): boolean;
export function parseExpiry(text: string): Expiry | null;
export function expiryInFuture(expiry: Expiry, now?: Date): boolean;
export function cvcValid(text: string): boolean;
export function emailValid(text: string): boolean;
export function checkPayment(
  values: Record<string, string | undefined>,
  options: { askShipping: boolean },
  now?: Date,
): Problem[];
