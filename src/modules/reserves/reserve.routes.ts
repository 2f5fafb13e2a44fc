import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { reserveExample } from './reserve.examples.js';
import { idPath, ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, linkById, notModified, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseQuery } from '../../http/validate.js';
import { findReserve, listReserves, listReservesQuery, reserveSummary } from './reserve.queries.js';
import { reserveConfigView } from './reserve.rules.js';
import { reserveConfigResource, reserveListResource, reserveResource, reserveSummaryResource } from './reserve.schemas.js';
import { reserveView } from './reserve.view.js';

const tags = ['Reserves'];

/** The reserve operations (all reads): each one's route, contract and query. */
export const reserveOperations: Operation<AppDeps>[] = [
  {
    method: 'get',
    path: '/reserves',
    operationId: 'listReserves',
    doc: {
      tags,
      summary: 'List reserves',
      description: 'Newest first, paged by the opaque `cursor` of the previous answer.',
      requestParams: { query: listReservesQuery },
      responses: {
        '200': ok('A page of reserves', reserveListResource, {
          example: { success: true, data: { items: [reserveExample], nextCursor: null } },
          links: { ReadFirstReserve: linkById('getReserve', '/data/items/0/id') },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
    handler: (deps) => async (ctx) => {
      const result = await listReserves(deps.orm.em.fork(), callerOf(ctx), parseQuery(ctx, listReservesQuery));
      ctx.body = { success: true, data: { items: result.items.map(reserveView), nextCursor: result.nextCursor } };
    },
  },
  // Registered before `/reserves/:id`, which would otherwise read `summary` and `config` as ids.
  {
    method: 'get',
    path: '/reserves/summary',
    operationId: 'getReserveSummary',
    doc: {
      tags,
      summary: 'Summarise reserves',
      description: 'With no reserves, counts and totals are 0 and both next-release fields are null.',
      requestParams: { header: ifNoneMatchHeader },
      responses: {
        '200': ok('The summary', reserveSummaryResource, {
          example: {
            success: true,
            data: { totalReservedAmountInCents: 50_700, activeReserveCount: 3, upcomingReleaseCount: 3, nextReleaseAt: '2027-02-19T09:31:12.000Z', nextReleaseAmountInCents: 507 },
          },
          etag: true,
        }),
        '304': notModified(),
        ...errors(...AUTHENTICATED),
      },
    },
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        ctx.body = { success: true, data: await reserveSummary(deps.orm.em.fork(), callerOf(ctx)) };
      },
    ],
  },
  {
    method: 'get',
    path: '/reserves/config',
    operationId: 'getReserveConfig',
    doc: {
      tags,
      summary: "Read the business's reserve terms",
      requestParams: { header: ifNoneMatchHeader },
      responses: {
        '200': ok('The reserve terms', reserveConfigResource, {
          example: { success: true, data: { enabled: true, reservePercentage: 10, holdPeriodDays: 90, holdPeriod: 'P90D' } },
          etag: true,
        }),
        '304': notModified(),
        ...errors(...AUTHENTICATED),
      },
    },
    handler: () => [
      conditionalGet,
      async (ctx) => {
        ctx.body = { success: true, data: reserveConfigView(callerOf(ctx).business) };
      },
    ],
  },
  {
    method: 'get',
    path: '/reserves/:id',
    operationId: 'getReserve',
    doc: {
      tags,
      summary: 'Read a reserve',
      requestParams: { path: idPath('res', 'The reserve id.'), header: ifNoneMatchHeader },
      responses: {
        '200': ok('The reserve', reserveResource, { example: { success: true, data: reserveExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'reserve_not_found'),
      },
    },
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        ctx.body = { success: true, data: reserveView(await findReserve(deps.orm.em.fork(), callerOf(ctx), ctx.params.id)) };
      },
    ],
  },
];
