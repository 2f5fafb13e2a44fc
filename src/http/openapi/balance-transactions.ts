import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { BALANCE_TRANSACTION_ID } from '../../modules/balance-transactions/balance-transaction.rules.js';
import {
  balanceTransactionListResource,
  balanceTransactionResource,
  listBalanceTransactionsQuery,
  type BalanceTransactionResource,
} from '../../modules/balance-transactions/balance-transaction.schemas.js';
import { ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, linkById, notModified, ok } from './responses.js';

const tags = ['Balance'];

const paymentExample: BalanceTransactionResource = {
  id: 'txn_0190f4c2a7e07b3c9d1e2f3a4b5c6d40_a',
  type: 'payment',
  amountInCents: 4208,
  feeInCents: 160,
  netInCents: 4048,
  balanceType: 'available',
  sourceId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e',
  createdAt: '2026-11-21T09:31:12.000Z',
  availableOn: '2026-11-21T09:31:12.000Z',
  description: 'Payment for checkout session 0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e',
};

const refundExample: BalanceTransactionResource = {
  id: 'txn_0190f4c2a7e07b3c9d1e2f3a4b5c6d41_r',
  type: 'refund',
  amountInCents: -450,
  feeInCents: 0,
  netInCents: -450,
  balanceType: 'reserved',
  sourceId: 'ref_0190f4c2a7e07b3c9d1e2f3a4b5c6d50',
  createdAt: '2026-11-22T10:00:00.000Z',
  availableOn: '2026-11-22T10:00:00.000Z',
  description: 'Refund ref_0190f4c2a7e07b3c9d1e2f3a4b5c6d50',
  funding: [
    { from: 'available', amountInCents: 4208 },
    { from: 'res_0190f4c2a7e07b3c9d1e2f3a4b5c6d20', amountInCents: 450 },
  ],
};

export const balanceTransactionPaths: ZodOpenApiPathsObject = {
  '/balance/transactions': {
    get: {
      operationId: 'listBalanceTransactions',
      tags,
      summary: 'List balance transactions',
      description:
        'Every move of the balance, newest first, paged by the opaque `cursor` of the previous answer. One item per money move and balance type it changes, so summing `netInCents` per `balanceType` over all items gives exactly `GET /balance` (`available`, `reserved`, `pending_withdrawal` = `pendingInCents`). A refund takes its money when it is created (`refund`) and gives it back only if it fails (`refund_failure`); a payment shows its fee in `feeInCents`, and the `fee` type is reserved for fees charged apart from a payment (none today). Not subject to the balance\'s 30-a-minute limit.',
      requestParams: { query: listBalanceTransactionsQuery },
      responses: {
        '200': ok('A page of balance transactions', balanceTransactionListResource, {
          example: { success: true, data: { items: [refundExample, paymentExample], meta: { hasMore: false, nextCursor: null } } },
          links: { ReadFirstBalanceTransaction: linkById('getBalanceTransaction', '/data/items/0/id') },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
  },
  '/balance/transactions/{id}': {
    get: {
      operationId: 'getBalanceTransaction',
      tags,
      summary: 'Read a balance transaction',
      requestParams: {
        path: z.object({
          id: z.string().regex(BALANCE_TRANSACTION_ID).meta({ description: 'The balance transaction id (`txn_…`).', example: paymentExample.id }),
        }),
        header: ifNoneMatchHeader,
      },
      responses: {
        '200': ok('The balance transaction', balanceTransactionResource, { example: { success: true, data: paymentExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'balance_transaction_not_found'),
      },
    },
  },
};
