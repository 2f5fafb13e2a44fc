import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, notModified, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { createRateLimiter, rateLimit } from '../../http/rate-limit.js';
import { balanceResource, type BalanceResource } from './balance.schemas.js';
import type { Balance } from './ledger.entity.js';
import { readBalance } from './ledger.service.js';

/**
 * The balance shape settled by the payments issue. Reserved and pending-withdrawal money sit in their
 * own accounts, so `availableInCents` never includes them. A business that has never moved money has
 * zeros and no `updatedAt`.
 */
export function balanceView(balance: Balance | null, livemode: boolean): BalanceResource {
  return {
    availableInCents: balance?.available ?? 0,
    reservedInCents: balance?.reserved ?? 0,
    pendingInCents: balance?.pendingWithdrawal ?? 0,
    currency: 'USD' as const,
    livemode,
    updatedAt: balance?.updatedAt.toISOString() ?? null,
  };
}

export const balanceOperations: Operation<AppDeps>[] = [
  {
    method: 'get',
    path: '/balance',
    operationId: 'getBalance',
    doc: {
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
    handler: (deps) => {
      // The spec's per-operation limit, counted per API key.
      const limiter = createRateLimiter(deps.orm, { name: 'balance', points: 30, durationSeconds: 60 });
      return [
        rateLimit(limiter, (ctx) => callerOf(ctx).keyId),
        conditionalGet,
        async (ctx) => {
          const caller = callerOf(ctx);
          ctx.body = { success: true, data: balanceView(await readBalance(deps.orm.em.fork(), caller), caller.livemode) };
        },
      ];
    },
  },
];
