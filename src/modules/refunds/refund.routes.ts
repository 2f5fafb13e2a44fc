import { z } from 'zod';
import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { refundExample } from './refund.examples.js';
import { idPath, ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseQuery } from '../../http/validate.js';
import { failpoint } from '../../ops/failpoints.js';
import { metrics } from '../../ops/metrics.js';
import { requireLivePayments } from '../processor/index.js';
import { createRefundInput, listRefundsQuery, refundPagination, refundResource } from './refund.schemas.js';
import { createRefund, findRefund, listRefunds, parseRefundInput } from './refund.service.js';
import { refundView } from './refund.view.js';

const tags = ['Refunds'];

/** The refund operations: each one's route, contract and service call. */
export const refundOperations: Operation<AppDeps>[] = [
  {
    method: 'post',
    path: '/refunds',
    operationId: 'createRefund',
    doc: {
      tags,
      summary: 'Refund a completed session',
      description:
        "Refunds the session's whole `total`, taken from the available balance first, then from the oldest active reserves. One refund per session (a failed refund does not count). A session whose dispute is open or lost cannot be refunded (the cardholder's bank has the money back, or may take it); after the dispute is won or the inquiry closed, it can. The refund then runs to `completed` or `failed`; watch it by reading it or by the `refund.completed` / `refund.failed` webhooks.",
      requestParams: { header: idempotencyKeyHeader },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: createRefundInput,
            examples: { refund: { value: { checkoutSessionId: refundExample.checkoutSessionId, reason: 'Customer returned the order' } } },
          },
        },
      },
      responses: {
        '201': ok('The refund, pending', refundResource, {
          example: { success: true, data: refundExample },
          idempotent: true,
          links: { ReadRefund: linkById('getRefund') },
        }),
        ...errors(
          ...IDEMPOTENT_POST,
          'live_payments_refused',
          'refund_session_not_completed',
          'refund_already_exists',
          'refund_session_disputed',
          'insufficient_balance_for_refund',
          'session_not_found',
        ),
      },
    },
    handler: (deps) => async (ctx) => {
      // Live mode fails closed: no live refund reaches the simulator unless the operator allowed it.
      requireLivePayments(deps.config.livePayments, callerOf(ctx).livemode);
      const input = await parseRefundInput(deps.orm.em.fork(), callerOf(ctx), ctx.request.body ?? {});
      const outbox = await deps.orm.em.fork().transactional(async (tx) => {
        const { refund, outbox } = await createRefund(tx, callerOf(ctx), input, deps.disputeBlockingRefund);
        await idempotency(ctx).complete(tx, 201, { success: true, data: refundView(refund) });
        return outbox;
      });
      await failpoint('refund.after-create', input.checkoutSessionId);
      deps.afterCommit([outbox]);
      metrics.refund('created');
    },
  },
  {
    method: 'get',
    path: '/refunds',
    operationId: 'listRefunds',
    doc: {
      tags,
      summary: 'List refunds',
      description: 'Newest first. `transactionId` is a checkout session id; one that is not a UUID matches nothing.',
      requestParams: { query: listRefundsQuery },
      responses: {
        '200': ok('A page of refunds', z.array(refundResource), {
          siblings: { pagination: refundPagination },
          example: { success: true, data: [refundExample], pagination: { page: 1, limit: 20, total: 1, totalPages: 1 } },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
    handler: (deps) => async (ctx) => {
      const query = parseQuery(ctx, listRefundsQuery);
      const { items, pagination } = await listRefunds(deps.orm.em.fork(), callerOf(ctx), query);
      ctx.body = { success: true, data: items.map(refundView), pagination };
    },
  },
  {
    method: 'get',
    path: '/refunds/:id',
    operationId: 'getRefund',
    doc: {
      tags,
      summary: 'Read a refund',
      requestParams: { path: idPath('ref', 'The refund id.'), header: ifNoneMatchHeader },
      responses: {
        '200': ok('The refund', refundResource, {
          example: { success: true, data: { ...refundExample, status: 'completed', completedAt: '2026-11-21T09:32:40.000Z' } },
          etag: true,
        }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'refund_not_found'),
      },
    },
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        const refund = await findRefund(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
        ctx.body = { success: true, data: refundView(refund) };
      },
    ],
  },
];
