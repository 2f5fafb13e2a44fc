import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { DomainError } from '../../domain/errors.js';
import type { Owner } from '../ledger/index.js';
import { Dispute } from './dispute.entity.js';
import { BLOCKS_REFUND } from './dispute.rules.js';

export interface ListDisputesFilter {
  status?: Dispute['status'];
  checkoutSessionId?: string;
  limit: number;
  cursor?: string;
}

const UUID = z.uuid();

/** Newest first, by a keyset cursor on (createdAt, id), so new disputes never shift the pages. */
export async function listDisputes(em: EntityManager, owner: Owner, query: ListDisputesFilter) {
  const where: FilterQuery<Dispute> = { businessId: owner.businessId, livemode: owner.livemode };
  if (query.status) where.status = query.status;
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor, 'dispute');
    if (!cursor) throw new DomainError('validation_failed', { errors: [{ path: ['cursor'], message: 'Invalid cursor' }] });
    where.$or = [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }];
  }
  if (query.checkoutSessionId !== undefined) {
    // A session id that is not a UUID names no session, so it matches no dispute (as the refunds' filter).
    if (!UUID.safeParse(query.checkoutSessionId).success) return { items: [], meta: { hasMore: false, nextCursor: null } };
    where.checkoutSessionId = query.checkoutSessionId;
  }
  const rows = await em.find(Dispute, where, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: query.limit + 1 });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  const hasMore = rows.length > query.limit;
  return { items, meta: { hasMore, nextCursor: hasMore && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null } };
}

/** Another business's or mode's dispute, or a malformed id, is not found. */
export async function findDispute(em: EntityManager, owner: Owner, id: string): Promise<Dispute> {
  const dispute = await em.findOne(Dispute, { id, businessId: owner.businessId, livemode: owner.livemode });
  if (!dispute) throw new DomainError('dispute_not_found');
  return dispute;
}

/** The session's dispute id, for the session's single read (null when it has none). */
export async function disputeIdOfSession(em: EntityManager, sessionId: string): Promise<string | null> {
  const dispute = await em.findOne(Dispute, { checkoutSessionId: sessionId }, { fields: ['id'] });
  return dispute?.id ?? null;
}

/**
 * The status of the session's dispute when it blocks a refund (the cardholder's bank has the money back,
 * or is deciding whether to take it), else null. A refund's creation asks it through
 * `AppDeps.disputeBlockingRefund`, wired in src/main/runtime.ts: disputes/ reads refunds/, not back.
 */
export async function disputeBlockingRefund(tx: EntityManager, sessionId: string): Promise<string | null> {
  const dispute = await tx.findOne(Dispute, { checkoutSessionId: sessionId }, { fields: ['status'] });
  return dispute && BLOCKS_REFUND.includes(dispute.status) ? dispute.status : null;
}
