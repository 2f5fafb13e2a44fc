import escapeHtml from 'escape-html';

/**
 * Escape-by-default HTML: every value interpolated into an `html` template is escaped (the five
 * characters `& < > " '`, so it is safe in text and in quoted attributes) unless it is itself the result
 * of an `html` template. Merchant-provided strings (business and item names, descriptions, URLs) can
 * therefore never become markup. A tagged template keeps views type-checked TypeScript with no template
 * files or engine to configure.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = Html | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** An attribute that is present or absent (`required`, `disabled`). */
export const flag = (name: string, on: boolean): Html => new Html(on ? ` ${name}` : '');
