import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  cancelledWithdrawalResource,
  createdWithdrawalResource,
  createWithdrawalInput,
  listWithdrawalsQuery,
  withdrawalListResource,
  withdrawalResource,
} from '../../modules/withdrawals/withdrawal.schemas.js';
import { pageMetaExample, withdrawalExample } from './examples.js';
import { idempotencyKeyHeader, idPath, ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok } from './responses.js';

const tags = ['Withdrawals'];
const wdId = idPath('wd', 'The withdrawal id.');
const { id, amountInCents, destinationType, destinationDetails, requestedAt } = withdrawalExample;

export const withdrawalPaths: ZodOpenApiPathsObject = {
  '/withdrawals': {
    post: {
      operationId: 'createWithdrawal',
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
        ...errors(...IDEMPOTENT_POST, 'live_payments_refused', 'withdrawal_method_not_found', 'insufficient_available_balance'),
      },
    },
    get: {
      operationId: 'listWithdrawals',
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
  },
  '/withdrawals/{id}': {
    get: {
      operationId: 'getWithdrawal',
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
  },
  '/withdrawals/{id}/cancel': {
    post: {
      operationId: 'cancelWithdrawal',
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
  },
};
