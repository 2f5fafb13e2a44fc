import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { eventWebhooks } from './events.js';
import { noNulInRequestText } from '../../http/openapi/no-nul.js';
import { everyErrorResponse } from '../../http/openapi/responses.js';
import { shareRepeatedResponses } from '../../http/openapi/shared-responses.js';
import { operationPaths, type Operation } from '../../http/operation.js';
import { declaredOperations } from '../routes.js';

const DESCRIPTION = `A hosted-checkout payments API: checkout sessions, refunds, disputes, reserves, withdrawals, balance and signed webhooks.

**Paths.** Every operation is served under \`/api/v1\` (the intended form) and, identically, under \`/api\`: the two servers below. This document is at \`/api/openapi.json\` (and \`/api/v1/openapi.json\`).

**Authentication.** \`Authorization: Bearer <API key>\`: a test key (\`mp_test_…\`) or a live key (\`mp_live_…\`, once the business is approved). Everything a key reads or writes belongs to its business and mode. A read-only key may only read (403). HTTPS only.

**Text.** Strings may not contain U+0000 or unpaired UTF-16 surrogates (400 naming the field; 404 in an id).

**Money.** Request amounts are dollars (at most two decimals); every amount in a response is integer cents. Always USD.

**Envelopes.** Success: \`{ "success": true, "data": … }\`. Error: \`{ "success": false, "error": { "type", "message", "requestId", "errors"?, "retryAfter"? } }\`; \`errors\` lists every field problem as \`{path, message}\`.

**Rate limits.** Per API key, by the business's tier: standard 60 a minute with bursts to 120, growth 300 with bursts to 600, enterprise custom. The burst allowance (burst − rate) refills every 10 minutes and is drawn on once the minute's requests are spent. Per operation: the pay call 10 a minute per session, the balance 30 a minute per key. Answers carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds); over the limit the answer is 429 with \`retryAfter\` and a \`Retry-After\` header. Beside them, the IETF RateLimit header fields carry the same figures: \`RateLimit-Policy: "apikey";q=120;w=60\` and \`RateLimit: "apikey";r=117;t=42\`. Limits hold across all API instances.

**Idempotency.** Every POST behind an API key takes an optional \`Idempotency-Key\` (see the parameter): a replay carries \`Idempotent-Replayed: true\`, a repeat still in flight is 409 with \`Retry-After\` (what the first request's claim on the key has left), the key with another body 422.

**Conditional reads.** The single-resource GETs carry an \`ETag\`; send it back in \`If-None-Match\` to get 304 with no body while the resource is unchanged.

**Errors on any path.** A path that does not exist is 404 \`not_found\`; a method a path does not support is 405 \`method_not_allowed\` with an \`Allow\` header (components \`RouteNotFound\`, \`MethodNotAllowed\`).`;

/** The document's sections, in reading order. */
const TAGS = [
  { name: 'Checkout sessions' },
  { name: 'Hosted checkout', description: 'The call the hosted payment page makes; public.' },
  { name: 'Balance' },
  { name: 'Reserves', description: 'Funds held back from payments until their release date.' },
  { name: 'Refunds' },
  { name: 'Disputes', description: "A cardholder's dispute of a payment, reported by the acquirer: an inquiry, or a chargeback whose amount and fee leave the balance at once." },
  { name: 'Withdrawals' },
  { name: 'Webhooks', description: 'Signed HTTPS notifications of events: `X-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`.' },
  { name: 'API document' },
];

/**
 * The operations the modules declare (src/api/routes.ts), section by section in the order of TAGS (and
 * in registration order within one).
 */
const servicePaths = (): ZodOpenApiPathsObject => operationPaths(inTagOrder(declaredOperations()));

/** The document itself is an operation too, so that a client can find it the same way as any other. */
const documentPath: ZodOpenApiPathsObject = {
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['API document'],
      summary: 'This document',
      description: 'No API key. Rendered for people at `/docs`.',
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document',
          headers: z.object({ ETag: z.string().meta({ description: 'Send it back as `If-None-Match` to revalidate.' }) }),
          content: { 'application/json': { schema: z.object({ openapi: z.string().regex(/^3\.1\./) }).catchall(z.unknown()) } },
        },
        '304': { description: 'Unchanged since the `If-None-Match` ETag' },
      },
    },
  },
};

function inTagOrder<Deps>(operations: Operation<Deps>[]): Operation<Deps>[] {
  const rank = (operation: Operation<Deps>) => TAGS.findIndex((tag) => tag.name === operation.doc.tags?.[0]);
  return operations.toSorted((a, b) => rank(a) - rank(b));
}

function build() {
  const document = createDocument({
    openapi: '3.1.0',
    info: { title: 'Payments API', version: 'v1', description: DESCRIPTION },
    servers: [
      { url: '/api/v1', description: 'Version 1 (the intended form)' },
      { url: '/api', description: 'Unversioned alias of version 1: identical behaviour' },
    ],
    security: [{ apiKey: [] }],
    tags: TAGS,
    paths: { ...servicePaths(), ...documentPath },
    webhooks: eventWebhooks,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'mp_test_… or mp_live_…', description: 'An API key of the business.' },
      },
      responses: everyErrorResponse(),
    },
  }, { override: noNulInRequestText });
  return shareRepeatedResponses(document);
}

let built: ReturnType<typeof build> | undefined;

/** The document, generated once per process from the zod schemas. */
export function apiDocument(): ReturnType<typeof build> {
  return (built ??= build());
}
