/**
 * Writes docs/openapi.json: the API reference as the service serves it (`GET /api/openapi.json`,
 * rendered at `/docs`), committed so it can be read without running anything. Run
 * `npm run generate:openapi` after changing an operation; test/http/openapi-file.test.ts fails while
 * the committed file differs from a fresh one.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiDocument } from '../src/api/openapi/document.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

export const openapiText = (): string => `${JSON.stringify(apiDocument(), null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, openapiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
