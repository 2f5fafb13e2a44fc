export type WebhookVerificationCode = 'malformed_header' | 'timestamp_outside_tolerance' | 'bad_signature' | 'malformed_payload';

/** The delivery cannot be trusted; answer it 400 and do nothing. `code` says why. */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

/** No `X-Webhook-Signature`, or one without `t=<unix seconds>` and at least one `v1=<64 hex>`. */
export class WebhookHeaderError extends WebhookVerificationError {
  override readonly name = 'WebhookHeaderError';
  constructor(message: string) {
    super('malformed_header', message);
  }
}

/** Signed too long ago (or too far ahead): a replay, or a clock far off. */
export class WebhookTimestampError extends WebhookVerificationError {
  override readonly name = 'WebhookTimestampError';
  constructor(
    readonly timestamp: number,
    readonly toleranceSeconds: number,
  ) {
    super('timestamp_outside_tolerance', `Timestamp ${timestamp} is more than ${toleranceSeconds} s from now`);
  }
}

/** No `v1` matches the secret: another secret, or a body changed on the way (re-serialised JSON, say). */
export class WebhookSignatureError extends WebhookVerificationError {
  override readonly name = 'WebhookSignatureError';
  constructor() {
    super('bad_signature', 'No v1 signature matches this secret and the raw body');
  }
}

/** Correctly signed, but not a JSON event. */
export class WebhookPayloadError extends WebhookVerificationError {
  override readonly name = 'WebhookPayloadError';
  constructor(message: string) {
    super('malformed_payload', message);
  }
}
