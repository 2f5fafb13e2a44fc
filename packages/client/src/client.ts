import createClient, { type Client } from 'openapi-fetch';
import { caToTrust, fetchTrusting, type CaCertificate } from './ca.js';
import { PaymentsApiError } from './errors.js';
import type { paths } from './generated/api.js';
import { byCursor, byPage } from './paginate.js';
import { retryingFetch, type RetryOptions } from './retrying-fetch.js';

export interface PaymentsClientOptions {
  /** A test (`mp_test_…`) or live (`mp_live_…`) key of your business, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The API's base URL with its version, e.g. `https://payments.example.com/api/v1`. */
  baseUrl: string;
  /** Another fetch (a proxy's, a test double); the global one by default. */
  fetch?: typeof fetch;
  /**
   * The PEM of the CA that signs the API's certificate, trusted besides the runtime's own (Node); by
   * default the file PAYMENTS_CA_FILE names, as `.data/demo.env` sets it for `npm start`'s development CA.
   */
  ca?: CaCertificate;
  retry?: RetryOptions;
}

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends string> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never;
/** The JSON body an operation takes. */
export type RequestBody<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = Op<P, M> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The query a GET takes. */
export type Query<P extends keyof paths> = Op<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The filters of a list: its query less the paging the iterator does itself. */
type Filters<P extends keyof paths> = Omit<Query<P>, 'page' | 'cursor'>;

/** The 2xx body of an openapi-fetch call, or the API's error thrown as a PaymentsApiError. */
async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (!response.ok) throw PaymentsApiError.from(response, error);
  return data as D;
}

/**
 * What a caller forgot, said as such: a `baseUrl` read from an unset variable used to fail inside with
 * "Cannot read properties of undefined (reading 'replace')". Each names the option and the variable
 * the README's examples set it from.
 */
function checkOptions(options: PaymentsClientOptions | undefined): void {
  const { baseUrl, apiKey } = (options ?? {}) as { baseUrl?: unknown; apiKey?: unknown };
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new TypeError(
      "createPaymentsClient: baseUrl is missing. Give the API's URL with its version, such as https://payments.example.com/api/v1 " +
        "(the README's examples read it from PAYMENTS_API_URL: is that variable set?)",
    );
  }
  if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new TypeError(`createPaymentsClient: baseUrl must be an absolute URL such as https://payments.example.com/api/v1, not ${JSON.stringify(baseUrl)}`);
  }
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new TypeError(
      "createPaymentsClient: apiKey is missing. Give your business's key, mp_test_… or mp_live_… " +
        "(the README's examples read it from PAYMENTS_API_KEY: is that variable set?)",
    );
  }
}

/**
 * The Payments API for a merchant's server: every operation of the document, typed from it, answering
 * the envelope's `data`. POSTs carry a fresh `Idempotency-Key` (the same one on each retry); network
 * errors, 429 and 5xx are retried with backoff; lists are async iterables over every page.
 */
export function createPaymentsClient(options: PaymentsClientOptions) {
  checkOptions(options);
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const ca = caToTrust(options.ca);
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(ca ? fetchTrusting(ca, baseFetch) : baseFetch, options.retry),
  });
  const id = (value: string) => ({ params: { path: { id: value } } });

  return {
    /** The typed openapi-fetch client underneath, for anything this layer does not wrap. */
    api,
    checkoutSessions: {
      create: async (body: RequestBody<'/checkout/sessions', 'post'>) => (await ok(api.POST('/checkout/sessions', { body }))).data,
      retrieve: async (sessionId: string) => (await ok(api.GET('/checkout/sessions/{id}', id(sessionId)))).data,
      list: (filters: Filters<'/checkout/sessions'> = {}) =>
        byCursor(async (cursor) => (await ok(api.GET('/checkout/sessions', { params: { query: { ...filters, cursor } } }))).data),
    },
    refunds: {
      create: async (body: RequestBody<'/refunds', 'post'>) => (await ok(api.POST('/refunds', { body }))).data,
      retrieve: async (refundId: string) => (await ok(api.GET('/refunds/{id}', id(refundId)))).data,
      list: (filters: Filters<'/refunds'> = {}) =>
        byPage(async (page) => {
          const { data, pagination } = await ok(api.GET('/refunds', { params: { query: { ...filters, page } } }));
          return { items: data, page: pagination.page, hasNextPage: pagination.page < pagination.totalPages };
        }),
    },
    disputes: {
      retrieve: async (disputeId: string) => (await ok(api.GET('/disputes/{id}', id(disputeId)))).data,
      /** Saves evidence; with `submit: true` sends it for review (it can no longer change after). */
      submitEvidence: async (disputeId: string, body: RequestBody<'/disputes/{id}/evidence', 'post'>) =>
        (await ok(api.POST('/disputes/{id}/evidence', { ...id(disputeId), body }))).data,
      /** Accepts the dispute: a chargeback is lost, an inquiry closed. */
      close: async (disputeId: string) => (await ok(api.POST('/disputes/{id}/close', id(disputeId)))).data,
      list: (filters: Filters<'/disputes'> = {}) =>
        byCursor(async (cursor) => {
          const { items, meta } = (await ok(api.GET('/disputes', { params: { query: { ...filters, cursor } } }))).data;
          return { items, nextCursor: meta.nextCursor };
        }),
    },
    withdrawals: {
      create: async (body: RequestBody<'/withdrawals', 'post'>) => (await ok(api.POST('/withdrawals', { body }))).data,
      retrieve: async (withdrawalId: string) => (await ok(api.GET('/withdrawals/{id}', id(withdrawalId)))).data,
      cancel: async (withdrawalId: string) => (await ok(api.POST('/withdrawals/{id}/cancel', id(withdrawalId)))).data,
      list: (filters: Filters<'/withdrawals'> = {}) =>
        byPage(async (page) => {
          const { items, meta } = (await ok(api.GET('/withdrawals', { params: { query: { ...filters, page } } }))).data;
          return { items, page: meta.page, hasNextPage: meta.hasNextPage };
        }),
    },
    balance: {
      retrieve: async () => (await ok(api.GET('/balance'))).data,
    },
    balanceTransactions: {
      retrieve: async (transactionId: string) => (await ok(api.GET('/balance/transactions/{id}', id(transactionId)))).data,
      list: (filters: Filters<'/balance/transactions'> = {}) =>
        byCursor(async (cursor) => {
          const { items, meta } = (await ok(api.GET('/balance/transactions', { params: { query: { ...filters, cursor } } }))).data;
          return { items, nextCursor: meta.nextCursor };
        }),
    },
    reserves: {
      retrieve: async (reserveId: string) => (await ok(api.GET('/reserves/{id}', id(reserveId)))).data,
      summary: async () => (await ok(api.GET('/reserves/summary'))).data,
      config: async () => (await ok(api.GET('/reserves/config'))).data,
      list: (filters: Filters<'/reserves'> = {}) =>
        byCursor(async (cursor) => (await ok(api.GET('/reserves', { params: { query: { ...filters, cursor } } }))).data),
    },
    webhookEndpoints: {
      create: async (body: RequestBody<'/webhooks', 'post'>) => (await ok(api.POST('/webhooks', { body }))).data,
      retrieve: async (endpointId: string) => (await ok(api.GET('/webhooks/{id}', id(endpointId)))).data,
      update: async (endpointId: string, body: RequestBody<'/webhooks/{id}', 'patch'>) =>
        (await ok(api.PATCH('/webhooks/{id}', { ...id(endpointId), body }))).data,
      delete: async (endpointId: string) => (await ok(api.DELETE('/webhooks/{id}', id(endpointId)))).data,
      rotateSecret: async (endpointId: string) => (await ok(api.POST('/webhooks/{id}/rotate-secret', id(endpointId)))).data,
      list: (filters: Filters<'/webhooks'> = {}) =>
        byPage(async (page) => {
          const { items, meta } = (await ok(api.GET('/webhooks', { params: { query: { ...filters, page } } }))).data;
          return { items, page: meta.page, hasNextPage: meta.hasNextPage };
        }),
    },
    events: {
      list: (filters: Filters<'/webhooks/events'> = {}) =>
        byPage(async (page) => {
          const { items, meta } = (await ok(api.GET('/webhooks/events', { params: { query: { ...filters, page } } }))).data;
          return { items, page: meta.page, hasNextPage: meta.hasNextPage };
        }),
      /** Sends an event (`evt_…`) or one delivery (`whd_…`) again. */
      retry: async (eventOrDeliveryId: string) => (await ok(api.POST('/webhooks/retry/{id}', id(eventOrDeliveryId)))).data,
    },
  };
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;
