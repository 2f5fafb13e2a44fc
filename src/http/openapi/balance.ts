import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { balanceResource } from '../../modules/ledger/balance.schemas.js';
import { balanceTransactionPaths } from './balance-transactions.js';
import { ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, notModified, ok } from './responses.js';

export const balancePaths: ZodOpenApiPathsObject = {
  '/balance': {
    get: {
      operationId: 'getBalance',
      tags: ['Balance'],
      summary: 'Read the balance',
      description:
        'In the mode of the key. Reserved funds and pending or processing withdrawals are not part of `availableInCents`. Limited to 30 calls a minute per key (its rate-limit headers show that limit).',
      requestParams: { header: ifNoneMatchHeader },
      responses: {
        '200': ok('The balance', balanceResource, {
          example: {
            success: true,
            data: { availableInCents: 452_310, reservedInCents: 50_700, pendingInCents: 12_550, currency: 'USD', livemode: false, updatedAt: '2026-11-21T09:31:12.000Z' },
          },
          etag: true,
        }),
        '304': notModified(),
        ...errors(...AUTHENTICATED),
      },
    },
  },
  ...balanceTransactionPaths,
};
