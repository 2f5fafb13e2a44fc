export { constructEvent, parseSignatureHeader, type ConstructEventOptions, type SignatureHeader } from './construct-event.js';
export {
  WebhookHeaderError,
  WebhookPayloadError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
  type WebhookVerificationCode,
} from './errors.js';
export type * from './events.js';
