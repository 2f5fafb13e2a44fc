import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { withdrawalExample } from './withdrawal.examples.js';
import { idPath, ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok, pageMetaExample } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { failpoint } from '../../ops/failpoints.js';
import { metrics } from '../../ops/metrics.js';
import { requireLiveWithdrawals } from '../processor/index.js';
import {
  cancelledWithdrawalResource,
  createdWithdrawalResource,
  createWithdrawalInput,
  listWithdrawalsQuery,
  withdrawalListResource,
  withdrawalResource,
} from './withdrawal.schemas.js';
import { cancelWithdrawal, createWithdrawal, findWithdrawal, listWithdrawals } from './withdrawal.service.js';
import { cancelledWithdrawalView, createdWithdrawalView, withdrawalListView, withdrawalView } from './withdrawal.view.js';

const tags = ['Withdrawals'];
const wdId = idPath('wd', 'The withdrawal id.');
const { id, amountInCents, destinationType, destinationDetails, requestedAt } = withdrawalExample;

/** The withdrawal operations: each one's route, contract and service call. */
export const withdrawalOperations: Operation<AppDeps>[] = [
  {
    method: 'post',
    path: '/withdrawals',
    operationId: 'createWithdrawal',
    doc: {
      tags,
      summary: 'Withdraw available funds',
      description:
        'Pays only a destination the business registered as a withdrawal method: `destinationType` and details must match one (e-mails and ERC20 addresses in any letter case; coin, network and TRC20 addresses exactly), otherwise 400 "Withdrawal method not found". The destination is stored and paid as registered. The amount leaves the available balance at once and stays out while the withdrawal is pending or processing; a pending withdrawal can be cancelled. The order of checks: the body, then the withdrawal method, then the balance.',
      requestParams: { header: idempotencyKeyHeader },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: createWithdrawalInput,
            examples: {
              wallet: { value: { amount: 125.5, destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@example.com' } } },
              crypto: {
                value: {
                  amount: 300,
                  destinationType: 'crypto',
                  destinationDetails: { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
                  notes: 'November payout',
                },
              },
            },
          },
        },
      },
      responses: {
        '201': ok('The withdrawal, pending', createdWithdrawalResource, {
          idempotent: true,
          links: { ReadWithdrawal: linkById('getWithdrawal'), CancelWithdrawal: linkById('cancelWithdrawal') },
          example: { success: true, data: { id, amountInCents, status: 'pending', destinationType, destinationDetails, requestedAt } },
        }),
        ...errors(...IDEMPOTENT_POST, 'live_payments_refused', 'live_withdrawals_refused', 'withdrawal_method_not_found', 'insufficient_available_balance'),
      },
    },
    handler: (deps) => async (ctx) => {
      // Live mode fails closed: no live payout reaches the simulator unless the operator allowed it, and a
      // real acquirer without a withdrawal rail pays none out.
      requireLiveWithdrawals(deps.config, callerOf(ctx).livemode);
      const input = parseBody(ctx, createWithdrawalInput);
      const outbox = await deps.orm.em.fork().transactional(async (tx) => {
        const { withdrawal, outbox } = await createWithdrawal(tx, callerOf(ctx), input, {
          processingDelayMs: deps.config.withdrawalProcessingDelayMs,
        });
        await idempotency(ctx).complete(tx, 201, { success: true, data: createdWithdrawalView(withdrawal) });
        return outbox;
      });
      await failpoint('withdrawal.after-create', callerOf(ctx).businessId);
      deps.afterCommit([outbox]);
      metrics.withdrawal('requested');
    },
  },
  {
    method: 'get',
    path: '/withdrawals',
    operationId: 'listWithdrawals',
    doc: {
      tags,
      summary: 'List withdrawals',
      requestParams: { query: listWithdrawalsQuery },
      responses: {
        '200': ok('A page of withdrawals', withdrawalListResource, {
          example: {
            success: true,
            data: { items: [{ id, amountInCents, status: 'completed', destinationType, requestedAt, completedAt: withdrawalExample.completedAt }], meta: pageMetaExample },
          },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
    handler: (deps) => async (ctx) => {
      const query = parseQuery(ctx, listWithdrawalsQuery);
      const { items, meta } = await listWithdrawals(deps.orm.em.fork(), callerOf(ctx), query);
      ctx.body = { success: true, data: { items: items.map(withdrawalListView), meta } };
    },
  },
  {
    method: 'get',
    path: '/withdrawals/:id',
    operationId: 'getWithdrawal',
    doc: {
      tags,
      summary: 'Read a withdrawal',
      description: '`processorTransactionId` (wallet) or `transactionHash` (crypto) once completed; `failureReason` once failed.',
      requestParams: { path: wdId, header: ifNoneMatchHeader },
      responses: {
        '200': ok('The withdrawal', withdrawalResource, { example: { success: true, data: withdrawalExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'withdrawal_not_found'),
      },
    },
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        const withdrawal = await findWithdrawal(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
        ctx.body = { success: true, data: withdrawalView(withdrawal) };
      },
    ],
  },
  {
    method: 'post',
    path: '/withdrawals/:id/cancel',
    operationId: 'cancelWithdrawal',
    doc: {
      tags,
      summary: 'Cancel a pending withdrawal',
      description: 'No body. The amount returns to the available balance at once. Only a pending withdrawal can be cancelled.',
      requestParams: { path: wdId, header: idempotencyKeyHeader },
      responses: {
        '200': ok('The cancelled withdrawal', cancelledWithdrawalResource, {
          idempotent: true,
          example: { success: true, data: { id, status: 'cancelled', amountInCents } },
        }),
        ...errors(...IDEMPOTENT_POST, 'withdrawal_not_cancellable', 'withdrawal_not_found'),
      },
    },
    handler: (deps) => async (ctx) => {
      const outbox = await deps.orm.em.fork().transactional(async (tx) => {
        const cancelled = await cancelWithdrawal(tx, callerOf(ctx), ctx.params.id);
        await idempotency(ctx).complete(tx, 200, { success: true, data: cancelledWithdrawalView(cancelled.withdrawal) });
        return cancelled.outbox;
      });
      metrics.withdrawal('cancelled');
      deps.afterCommit([outbox]);
    },
  },
];
