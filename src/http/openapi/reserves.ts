import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { listReservesQuery } from '../../modules/reserves/reserve.queries.js';
import { reserveConfigResource, reserveListResource, reserveResource, reserveSummaryResource } from '../../modules/reserves/reserve.schemas.js';
import { reserveExample } from './examples.js';
import { idPath, ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, linkById, notModified, ok } from './responses.js';

const tags = ['Reserves'];

export const reservePaths: ZodOpenApiPathsObject = {
  '/reserves': {
    get: {
      operationId: 'listReserves',
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
  },
  '/reserves/summary': {
    get: {
      operationId: 'getReserveSummary',
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
  },
  '/reserves/config': {
    get: {
      operationId: 'getReserveConfig',
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
  },
  '/reserves/{id}': {
    get: {
      operationId: 'getReserve',
      tags,
      summary: 'Read a reserve',
      requestParams: { path: idPath('res', 'The reserve id.'), header: ifNoneMatchHeader },
      responses: {
        '200': ok('The reserve', reserveResource, { example: { success: true, data: reserveExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'reserve_not_found'),
      },
    },
  },
};
