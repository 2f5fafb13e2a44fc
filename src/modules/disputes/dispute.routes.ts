import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { idPath, ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { emptyEvidence } from './dispute.rules.js';
import { findDispute, listDisputes } from './dispute.queries.js';
import { disputeListResource, disputeResource, listDisputesQuery, submitEvidenceInput, type DisputeResource } from './dispute.schemas.js';
import { closeDispute, saveEvidence } from './dispute.service.js';
import { disputeView } from './dispute.view.js';

const tags = ['Disputes'];
const dspId = idPath('dsp', 'The dispute id.');

const example: DisputeResource = {
  id: 'dsp_0190f4c2a7e07b3c9d1e2f3a4b5c6d90',
  checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e',
  amountInCents: 5072,
  feeInCents: 1500,
  currency: 'USD',
  reason: 'product_not_received',
  status: 'needs_response',
  evidence: emptyEvidence(),
  evidenceDueBy: '2026-11-28T09:30:00.000Z',
  submittedAt: null,
  evidenceRefusal: null,
  closedAt: null,
  funding: { fromAvailableInCents: 6065, fromReservesInCents: 507, owedInCents: 0 },
  createdAt: '2026-11-21T09:30:00.000Z',
  updatedAt: '2026-11-21T09:30:00.000Z',
  livemode: false,
};
const submitted: DisputeResource = {
  ...example,
  status: 'under_review',
  evidence: { ...example.evidence, shippingCarrier: 'UPS', shippingTrackingNumber: '1Z999AA10123456784', uncategorizedText: 'Delivered and signed for.' },
  submittedAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};
const links = { SubmitEvidence: linkById('submitDisputeEvidence'), CloseDispute: linkById('closeDispute') };

/** The dispute operations: each one's route, contract and service call. */
export const disputeOperations: Operation<AppDeps>[] = [
  {
    method: 'get',
    path: '/disputes',
    operationId: 'listDisputes',
    doc: {
      tags,
      summary: 'List disputes',
      description: 'Newest first, paged by the opaque `cursor` of the previous answer.',
      requestParams: { query: listDisputesQuery },
      responses: {
        '200': ok('A page of disputes', disputeListResource, {
          example: { success: true, data: { items: [example], meta: { hasMore: false, nextCursor: null } } },
          links: { ReadFirstDispute: linkById('getDispute', '/data/items/0/id') },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
    handler: (deps) => async (ctx) => {
      const { items, meta } = await listDisputes(deps.orm.em.fork(), callerOf(ctx), parseQuery(ctx, listDisputesQuery));
      ctx.body = { success: true, data: { items: items.map(disputeView), meta } };
    },
  },
  {
    method: 'get',
    path: '/disputes/:id',
    operationId: 'getDispute',
    doc: {
      tags,
      summary: 'Read a dispute',
      requestParams: { path: dspId, header: ifNoneMatchHeader },
      responses: {
        '200': ok('The dispute', disputeResource, { example: { success: true, data: example }, etag: true, links }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'dispute_not_found'),
      },
    },
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        ctx.body = { success: true, data: disputeView(await findDispute(deps.orm.em.fork(), callerOf(ctx), ctx.params.id)) };
      },
    ],
  },
  {
    method: 'post',
    path: '/disputes/:id/evidence',
    operationId: 'submitDisputeEvidence',
    doc: {
      tags,
      summary: 'Save or submit evidence',
      description:
        'Saves the evidence fields given (null clears one; those left out keep what was saved). With `submit: true` the evidence is sent: the dispute moves to `under_review` (an inquiry to `warning_under_review`) and `submittedAt` is set. Only while the dispute needs a response and before `evidenceDueBy`.',
      requestParams: { path: dspId, header: idempotencyKeyHeader },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: submitEvidenceInput,
            examples: { submit: { value: { shippingCarrier: 'UPS', shippingTrackingNumber: '1Z999AA10123456784', uncategorizedText: 'Delivered and signed for.', submit: true } } },
          },
        },
      },
      responses: {
        '200': ok('The dispute', disputeResource, { example: { success: true, data: submitted }, idempotent: true }),
        ...errors(...IDEMPOTENT_POST, 'dispute_evidence_not_accepted', 'dispute_evidence_past_due', 'dispute_not_found'),
      },
    },
    handler: (deps) => async (ctx) => {
      const input = parseBody(ctx, submitEvidenceInput);
      const outbox = await deps.orm.em.fork().transactional(async (tx) => {
        const { dispute, outbox } = await saveEvidence(tx, callerOf(ctx), ctx.params.id, input, deps.acquirerEvidenceRules);
        await idempotency(ctx).complete(tx, 200, { success: true, data: disputeView(dispute) });
        return outbox;
      });
      if (outbox) deps.afterCommit([outbox]);
    },
  },
  {
    method: 'post',
    path: '/disputes/:id/close',
    operationId: 'closeDispute',
    doc: {
      tags,
      summary: 'Accept a dispute',
      description: 'No body. A chargeback becomes `lost` (its amount and fee stay withdrawn), an inquiry `warning_closed`. A closed dispute cannot be closed again.',
      requestParams: { path: dspId, header: idempotencyKeyHeader },
      responses: {
        '200': ok('The closed dispute', disputeResource, {
          example: { success: true, data: { ...example, status: 'lost', closedAt: '2026-11-22T10:00:00.000Z', updatedAt: '2026-11-22T10:00:00.000Z' } },
          idempotent: true,
        }),
        ...errors(...IDEMPOTENT_POST, 'dispute_not_closable', 'dispute_not_found'),
      },
    },
    handler: (deps) => async (ctx) => {
      const outbox = await deps.orm.em.fork().transactional(async (tx) => {
        const { dispute, outbox } = await closeDispute(tx, callerOf(ctx), ctx.params.id);
        await idempotency(ctx).complete(tx, 200, { success: true, data: disputeView(dispute) });
        return outbox;
      });
      deps.afterCommit([outbox]);
    },
  },
];
