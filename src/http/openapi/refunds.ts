import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { createRefundInput, listRefundsQuery, refundPagination, refundResource } from '../../modules/refunds/refund.schemas.js';
import { z } from 'zod';
import { refundExample } from './examples.js';
import { idempotencyKeyHeader, idPath, ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok } from './responses.js';

const tags = ['Refunds'];

export const refundPaths: ZodOpenApiPathsObject = {
  '/refunds': {
    post: {
      operationId: 'createRefund',
      tags,
      summary: 'Refund a completed session',
      description:
        "Refunds the session's whole `total`, taken from the available balance first, then from the oldest active reserves. One refund per session (a failed refund does not count). The refund then runs to `completed` or `failed`; watch it by reading it or by the `refund.completed` / `refund.failed` webhooks.",
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
        ...errors(...IDEMPOTENT_POST, 'live_payments_refused', 'refund_session_not_completed', 'refund_already_exists', 'insufficient_balance_for_refund', 'session_not_found'),
      },
    },
    get: {
      operationId: 'listRefunds',
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
  },
  '/refunds/{id}': {
    get: {
      operationId: 'getRefund',
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
  },
};
