import type Router from '@koa/router';
import type { Operation } from '../http/operation.js';
import type { AppDeps } from '../modules/app-deps.js';
import { balanceTransactionOperations } from '../modules/balance-transactions/index.js';
import { payOperations, sessionOperations } from '../modules/checkout/index.js';
import { balanceOperations } from '../modules/ledger/index.js';
import { refundOperations } from '../modules/refunds/index.js';
import { disputeOperations } from '../modules/disputes/index.js';
import { reserveOperations } from '../modules/reserves/index.js';
import { webhookEventsMethodGuard, webhookOperations } from '../modules/webhooks/index.js';
import { withdrawalOperations } from '../modules/withdrawals/index.js';

/**
 * The route list: every API operation, in the order the app registers them (src/api/app.ts) and the
 * API document collects them (src/api/openapi/document.ts). Each entry is a module's `*.routes.ts`,
 * which holds its operations' routes, contracts and service calls.
 */

/** A route that is not an operation (the event log's method guard): registered as it is, and not in the API document. */
export type RouteModule = (router: Router, deps: AppDeps) => void;

/** Operations that need no API key: the hosted page's pay call, whose session id is the capability. */
export const publicApiRoutes: Array<readonly Operation<AppDeps>[] | RouteModule> = [payOperations];

/**
 * Operations behind an API key. Balance transactions before the balance, so `/balance/transactions` is
 * never read as a `/balance/:x`.
 */
export const apiRoutes: Array<readonly Operation<AppDeps>[] | RouteModule> = [
  sessionOperations,
  balanceTransactionOperations,
  balanceOperations,
  reserveOperations,
  refundOperations,
  disputeOperations,
  withdrawalOperations,
  // Before the webhook operations: the 405 of other methods on `/webhooks/events` (not an operation).
  webhookEventsMethodGuard,
  webhookOperations,
];

/** Every operation declared as one, for the API document. */
export const declaredOperations = (): Operation<AppDeps>[] => [...publicApiRoutes, ...apiRoutes].filter((entry) => Array.isArray(entry)).flat();
