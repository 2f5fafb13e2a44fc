import { ISO_COUNTRY_CODES } from '../checkout/index.js';

/**
 * The shipping country select offers the codes the pay call accepts (one list, in countries.rules.ts).
 * A select, rather than a free text box, lets browsers autofill the country and can only send a valid code.
 */
const names = new Intl.DisplayNames(['en'], { type: 'region' });

/** `[code, English name]`, sorted by name. */
export const COUNTRIES: readonly (readonly [string, string])[] = [...ISO_COUNTRY_CODES]
  .map((code) => [code, names.of(code) ?? code] as const)
  .sort((a, b) => a[1].localeCompare(b[1], 'en'));
