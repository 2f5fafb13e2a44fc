import { z } from 'zod';
import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, linkById, notModified, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseQuery } from '../../http/validate.js';
import { findBalanceTransaction, listBalanceTransactions } from './balance-transaction.queries.js';
import { BALANCE_TRANSACTION_ID } from './balance-transaction.rules.js';
import {
  balanceTransactionListResource,
  balanceTransactionResource,
  listBalanceTransactionsQuery,
  type BalanceTransactionResource,
} from './balance-transaction.schemas.js';

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

/**
 * Every cent of the balance explained. Registered before any `/balance/:x` route, and without the
 * balance's own 30-a-minute limit: a merchant reconciling pages through many of these, and each page is
 * one indexed read (the key's general limit still applies).
 */
export const balanceTransactionOperations: Operation<AppDeps>[] = [
  {
    method: 'get',
    path: '/balance/transactions',
    operationId: 'listBalanceTransactions',
    doc: {
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
    handler: (deps) => async (ctx) => {
      const query = parseQuery(ctx, listBalanceTransactionsQuery);
      ctx.body = { success: true, data: await listBalanceTransactions(deps.orm.em.fork(), callerOf(ctx), query) };
    },
  },
  {
    method: 'get',
    path: '/balance/transactions/:id',
    operationId: 'getBalanceTransaction',
    doc: {
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
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        ctx.body = { success: true, data: await findBalanceTransaction(deps.orm.em.fork(), callerOf(ctx), ctx.params.id) };
      },
    ],
  },
];
