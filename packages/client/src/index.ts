export { createPaymentsClient, type PaymentsClient, type PaymentsClientOptions, type Query, type RequestBody } from './client.js';
export type { CaCertificate } from './ca.js';
export { PaymentsApiError, PaymentsConnectionError, type ApiErrorType, type FieldError } from './errors.js';
export { ListIterator } from './paginate.js';
export type { RetryOptions } from './retrying-fetch.js';
export type { components, operations, paths } from './generated/api.js';

import type { components } from './generated/api.js';
type Schemas = components['schemas'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type CheckoutSessionListItem = Schemas['CheckoutSessionListItem'];
export type Refund = Schemas['Refund'];
export type Withdrawal = Schemas['Withdrawal'];
export type Balance = Schemas['Balance'];
export type BalanceTransaction = Schemas['BalanceTransaction'];
export type Reserve = Schemas['Reserve'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
