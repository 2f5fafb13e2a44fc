import { z } from 'zod';
import type { ZodOpenApiLinksObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ERROR_TYPES, errorEnvelope, successEnvelope } from '../envelope.js';
import { errorBody } from '../error-middleware.js';
import { ApiError, errorEntry, type ErrorCode, type ErrorType } from '../errors.js';

/**
 * Responses of the API document. Error responses are generated from the error catalogue: each lists the
 * types its status can carry and one example per catalogue entry the operation can give, built by the
 * same `errorBody` that answers real requests.
 */

const integerHeader = (id: string, description: string) => z.number().int().min(0).meta({ description, header: { id } });

const requestId = z.string().meta({
  description: 'The request id; the same as `error.requestId` in an error.',
  example: 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c',
  header: { id: 'X-Request-Id' },
});
const apiVersion = z.literal('v1').meta({ description: 'The API version that answered.', header: { id: 'API-Version' } });

/** On every answer the service gives. */
const alwaysHeaders = { 'X-Request-Id': requestId, 'API-Version': apiVersion };

/** The spec's rate-limit headers; the tighter per-operation figures replace the key's where one applies. */
const rateLimitHeaders = {
  'X-RateLimit-Limit': integerHeader('X-RateLimit-Limit', 'Requests allowed in the window (for an API key: its burst).'),
  'X-RateLimit-Remaining': integerHeader('X-RateLimit-Remaining', 'Requests left in the window.'),
  'X-RateLimit-Reset': integerHeader('X-RateLimit-Reset', 'Unix time (seconds) at which the window resets.'),
  // The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11), the same figures.
  'RateLimit-Policy': z
    .string()
    .regex(/^"[a-z][a-z0-9-]*";q=\d+;w=\d+$/)
    .meta({
      description:
        'The policy that counted this request (IETF RateLimit header fields draft): its name, `q` = X-RateLimit-Limit and `w` = its window in seconds. Names: `apikey`, `balance`, `pay`, `public`.',
      example: '"apikey";q=120;w=60',
      header: { id: 'RateLimit-Policy' },
    }),
  RateLimit: z
    .string()
    .regex(/^"[a-z][a-z0-9-]*";r=\d+;t=\d+$/)
    .meta({
      description:
        'What is left under that policy (IETF RateLimit header fields draft): `r` = X-RateLimit-Remaining and `t` = seconds until X-RateLimit-Reset (on a 429, equal to Retry-After).',
      example: '"apikey";r=117;t=42',
      header: { id: 'RateLimit' },
    }),
};

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, schema.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const idempotentReplayed = z.literal('true').meta({
  description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key.',
  header: { id: 'Idempotent-Replayed' },
});
const etag = z
  .string()
  .regex(/^"[A-Za-z0-9_-]+"$/)
  .meta({
    description: 'A strong entity tag of this representation (a hash of the body). Send it back in `If-None-Match` to get 304 while the resource is unchanged.',
    example: '"3q2-7wEjR0aY1b8kWb9v0A"',
    header: { id: 'ETag' },
  });
const retryAfter = z.number().int().min(1).meta({ description: 'Seconds to wait before retrying.', header: { id: 'Retry-After' } });
const allow = z.string().meta({ description: 'The methods this path does allow.', header: { id: 'Allow' } });

/** One envelope schema per set of error types, registered once as a component. */
const envelopes = new Map<string, z.ZodType>();
function envelopeFor(types: [ErrorType, ...ErrorType[]]): z.ZodType {
  const key = [...types].sort().join('|');
  if (!envelopes.has(key)) {
    const id = types.length === ERROR_TYPES.length ? 'Error' : `${[...types].sort().map(pascal).join('Or')}Envelope`;
    envelopes.set(key, errorEnvelope(types).meta({ id }));
  }
  return envelopes.get(key)!;
}
const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

/** A success answer: `{ success: true, data }` with the rate-limit headers it always carries. */
export function ok(
  description: string,
  data: z.ZodType,
  opts: { example?: unknown; siblings?: z.ZodRawShape; idempotent?: boolean; rateLimited?: boolean; etag?: boolean; links?: ZodOpenApiLinksObject } = {},
): ZodOpenApiResponseObject {
  const headers: Record<string, z.ZodType> = { ...alwaysHeaders, ...(opts.rateLimited === false ? {} : rateLimitHeaders) };
  if (opts.etag) headers.ETag = etag;
  if (opts.idempotent) {
    headers['Idempotent-Replayed'] = idempotentReplayed.optional();
  }
  return {
    description,
    headers: z.object(headers),
    ...(opts.links ? { links: opts.links } : {}),
    content: {
      'application/json': {
        schema: successEnvelope(data, opts.siblings),
        ...(opts.example === undefined ? {} : { examples: { example: { value: opts.example } } }),
      },
    },
  };
}

/** The 304 of a conditional read (`conditionalGet`): no body, the same ETag and rate-limit headers. */
export function notModified(): ZodOpenApiResponseObject {
  return {
    description: 'Not modified: `If-None-Match` matched the current ETag (weak comparison; `*` matches any). No body.',
    headers: z.object({ ...alwaysHeaders, ...rateLimitHeaders, ETag: etag }),
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: 'Not permitted',
  404: 'Not found',
  405: 'Method not allowed on this path',
  408: 'The request body did not arrive within BODY_READ_TIMEOUT; the connection is closed',
  409: 'A request with this Idempotency-Key is in progress; retry after Retry-After (what its claim on the key has left, at most 60 s)',
  422: 'The Idempotency-Key was used with a different request',
  429: 'Rate limit exceeded',
  500: 'Unexpected server error',
  503: 'A dependency (database or Temporal) is unreachable, or the request bodies in flight (of this process, or of this client address) are at their budget; retry after Retry-After (always 1 s)',
};

/** Example details for the catalogue entries whose message or envelope takes parameters. */
const SAMPLE_DETAILS: Partial<Record<ErrorCode, ConstructorParameters<typeof ApiError>[1]>> = {
  validation_failed: { errors: [{ path: ['items', 0, 'quantity'], message: 'Quantity must be between 1 and 1000000' }] },
  withdrawal_not_cancellable: { params: { status: 'completed' } },
  session_not_payable: { params: { status: 'completed' } },
  refund_session_disputed: { params: { status: 'needs_response' } },
  dispute_evidence_not_accepted: { params: { status: 'under_review' } },
  dispute_evidence_past_due: { params: { evidenceDueBy: '2026-11-28T09:30:00.000Z' } },
  dispute_not_closable: { params: { status: 'lost' } },
  rate_limit_exceeded: { params: { seconds: 12 }, retryAfter: 12 },
  idempotency_key_in_progress: { retryAfter: 42 },
};

const EXAMPLE_REQUEST_ID = 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c';

function errorResponse(status: number, codes: ErrorCode[]): ZodOpenApiResponseObject {
  const types = [...new Set(codes.map((code) => errorEntry(code).type))] as [ErrorType, ...ErrorType[]];
  const examples = Object.fromEntries(
    codes.map((code) => [code, { summary: new ApiError(code, SAMPLE_DETAILS[code]).message, value: errorBody(new ApiError(code, SAMPLE_DETAILS[code]), EXAMPLE_REQUEST_ID) }]),
  );
  const headers: Record<string, z.ZodType> = { ...alwaysHeaders, ...optional(rateLimitHeaders) };
  if (status === 429) {
    Object.assign(headers, rateLimitHeaders, { 'Retry-After': retryAfter });
  }
  if (status === 405) headers.Allow = allow;
  if (status === 503 || status === 409) Object.assign(headers, { 'Retry-After': retryAfter });
  return {
    description: STATUS_TEXT[status] ?? 'Error',
    headers: z.object(headers),
    content: { 'application/json': { schema: envelopeFor(types), examples } },
  };
}

/** The error responses for a list of catalogue entries, grouped by status. */
export function errors(...codes: ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorEntry(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), errorResponse(status, list)]));
}

/**
 * Any request can meet these: HTTPS behind a proxy, an unexpected fault, an unreachable dependency, and a
 * field the operation does not define (in a query string any operation may be sent; src/http/operation.ts).
 */
const ANY: ErrorCode[] = ['https_required', 'internal', 'service_unavailable', 'validation_failed'];
/** A body (POST, PUT, PATCH, DELETE) is parsed before anything else. */
const BODY: ErrorCode[] = ['invalid_json', 'unsupported_media_type', 'unsupported_content_encoding', 'body_too_large', 'body_too_deep', 'request_timeout'];
/** Every operation behind an API key. */
export const AUTHENTICATED: ErrorCode[] = [...ANY, 'api_key_missing', 'authorization_not_bearer', 'invalid_api_key', 'business_not_approved', 'rate_limit_exceeded'];
/** A write: a read-only key is refused, and the body is read. */
export const WRITE: ErrorCode[] = [...AUTHENTICATED, ...BODY, 'read_only_key'];
/** A POST behind an API key: the Idempotency-Key rules (a malformed key is a validation error). */
export const IDEMPOTENT_POST: ErrorCode[] = [...WRITE, 'validation_failed', 'idempotency_key_reused', 'idempotency_key_in_progress'];
/** The public pay call: no API key. */
export const PUBLIC_POST: ErrorCode[] = [...ANY, ...BODY, 'rate_limit_exceeded'];

/** For the document's components: every status a caller can meet, including 405 on any path. */
export const everyErrorResponse = (): Record<string, ZodOpenApiResponseObject> => ({
  MethodNotAllowed: errorResponse(405, ['method_not_allowed']),
  RouteNotFound: errorResponse(404, ['route_not_found']),
});

/** An OpenAPI link: the `id` of another operation taken from this answer (`$response.body#/data/id`). */
export const linkById = (operationId: string, pointer = '/data/id', description?: string) => ({
  operationId,
  parameters: { id: `$response.body#${pointer}` },
  ...(description ? { description } : {}),
});

/** The spec's page meta of a one-page list, for the lists' examples. */
export const pageMetaExample = { total: 1, page: 1, limit: 20, totalPages: 1, hasNextPage: false, hasPreviousPage: false };
