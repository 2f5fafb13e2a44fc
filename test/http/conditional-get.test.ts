import { describe, expect, it } from '@jest/globals';
import { entityTag, noneMatchFails } from '../../src/http/conditional-get.js';

describe('entity tags', () => {
  it('are strong, quoted, and the same for the same representation only', () => {
    const tag = entityTag('{"success":true,"data":{"id":"ref_1"}}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(entityTag('{"success":true,"data":{"id":"ref_1"}}')).toBe(tag);
    expect(entityTag('{"success":true,"data":{"id":"ref_2"}}')).not.toBe(tag);
  });
});

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  const tag = '"abc,def"';
  it.each([
    ['the same strong tag', '"abc,def"', true],
    ['the weak form of the tag (weak comparison)', 'W/"abc,def"', true],
    ['a list that holds the tag', '"other", W/"abc,def" , "more"', true],
    ['any current representation', '*', true],
    ['a surrounding-space star', '  *  ', true],
    ['another tag', '"abc"', false],
    ['a tag split at its comma', '"abc", "def"', false],
    ['an unquoted tag (not an entity tag)', 'abc,def', false],
    ['an empty header', '', false],
    ['a star inside a list (not the `*` form)', '"x", *', false],
  ])('%s: %s → %s', (_name, header, matches) => {
    expect(noneMatchFails(header, tag)).toBe(matches);
  });
});
