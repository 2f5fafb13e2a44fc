import type { components } from './generated/api.js';

type Schemas = components['schemas'];
/** Every error envelope the document describes (`…Envelope`), and so every `type` the API answers. */
type ErrorEnvelope = Schemas[Extract<keyof Schemas, `${string}Envelope`>];
export type ApiErrorType = ErrorEnvelope['error']['type'];
export type FieldError = Schemas['FieldError'];

/**
 * The API answered with its error envelope (or, from a proxy, with no envelope at all): the spec's
 * `type`, `message`, `requestId` and field `errors`, plus the HTTP status and, on a 429, `retryAfter`.
 */
export class PaymentsApiError extends Error {
  override readonly name = 'PaymentsApiError';
  readonly status: number;
  readonly type: ApiErrorType;
  readonly requestId: string | null;
  readonly errors: FieldError[];
  /** Seconds to wait, on a 429 (from the body, else the `Retry-After` header). */
  readonly retryAfter: number | null;

  constructor(init: { status: number; type: ApiErrorType; message: string; requestId: string | null; errors?: FieldError[]; retryAfter?: number | null }) {
    super(init.message);
    this.status = init.status;
    this.type = init.type;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.retryAfter = init.retryAfter ?? null;
  }

  /** From an answer that is not 2xx; `body` is the parsed JSON, if it was JSON. */
  static from(response: Response, body: unknown): PaymentsApiError {
    const envelope = (body as { error?: Partial<ErrorEnvelope['error']> } | undefined)?.error;
    const header = response.headers.get('Retry-After');
    return new PaymentsApiError({
      status: response.status,
      type: envelope?.type ?? 'api_error',
      message: envelope?.message ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId: envelope?.requestId ?? response.headers.get('X-Request-Id'),
      errors: (envelope as { errors?: FieldError[] } | undefined)?.errors,
      retryAfter: (envelope as { retryAfter?: number } | undefined)?.retryAfter ?? (header && /^\d+$/.test(header) ? Number(header) : null),
    });
  }
}

/** No answer at all (connection refused or reset, DNS, TLS), after every retry. */
export class PaymentsConnectionError extends Error {
  override readonly name = 'PaymentsConnectionError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}
