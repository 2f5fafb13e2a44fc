import { readFileSync } from 'node:fs';
import { OPENAPI_FILE, openapiText } from '../../scripts/generate-openapi.js';
import { sessionExample } from '../../src/modules/checkout/index.js';
import { reserveExample } from '../../src/modules/reserves/reserve.examples.js';

describe('docs/openapi.json', () => {
  it('is the document the service serves (npm run generate:openapi writes it again)', () => {
    // Compared as text: a reordered key or a changed example is drift too.
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openapiText());
  });
});

describe("the document's examples", () => {
  it('tell one story: the example reserve is held from the example session', () => {
    expect(reserveExample.paymentId).toBe(sessionExample.id);
  });
});
