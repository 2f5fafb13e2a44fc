/**
 * The edge refuses U+0000 in any request text (src/http/text-guard.ts), so every string a request
 * carries says so: a pattern of its own beside whatever pattern the schema already has, unless that one
 * already rules it out (an id's `^wh_[0-9a-f]{32}$`, a list of values). Said twice, it was not only
 * noise: a fuzzer asked for an invalid path id tried to break the second pattern with a NUL, which no
 * URL can carry, and threw most of its cases away (`POST /webhooks/{id}/recover` failed Schemathesis's
 * health check for it).
 */
export function noNulInRequestText({ jsonSchema, io }: { jsonSchema: { type?: unknown; allOf?: object[]; pattern?: unknown; enum?: unknown[]; const?: unknown }; io: 'input' | 'output' }): void {
  if (io !== 'input' || jsonSchema.type !== 'string') return;
  const noNul = { pattern: '^[^\\u0000]*$' };
  const isNoNul = (part: object) => JSON.stringify(part) === JSON.stringify(noNul);
  // Called once per wrapper of a schema (the bare string first, then with its pattern, its metadata…),
  // each seeing what the one before wrote: added once, and taken back once the schema's own rules it out.
  if (jsonSchema.enum || jsonSchema.const !== undefined || (typeof jsonSchema.pattern === 'string' && !admitsNul(jsonSchema.pattern))) {
    const rest = jsonSchema.allOf?.filter((part) => !isNoNul(part));
    if (rest?.length) jsonSchema.allOf = rest;
    else delete jsonSchema.allOf;
    return;
  }
  if (jsonSchema.allOf?.some(isNoNul)) return;
  jsonSchema.allOf = [...(jsonSchema.allOf ?? []), noNul];
}

/**
 * Whether a string that `pattern` matches could hold U+0000: when the pattern is not anchored at both
 * ends (a match may carry anything around it), has a top-level alternative (each may be partial), or
 * reaches it through `.`, a negated class, `\S`, `\W`, `\D` or an escape of NUL itself. Errs on the side of yes.
 */
export function admitsNul(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return true;
  // Escaped punctuation is a literal character; what is left of an escape names a class or a code.
  const plain = pattern.replace(/\\[.\-[\]\\^$()|?*+{}/]/g, 'x');
  if (/\.|\[\^|\\[SWD0]|\\u0000|\\x00|\0/.test(plain)) return true;
  let depth = 0;
  for (const ch of plain) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) return true;
  }
  return false;
}
