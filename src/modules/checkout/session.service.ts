import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, newSessionId } from '../../domain/ids.js';
import type { Caller } from '../businesses/index.js';
import type { AppDeps } from '../app-deps.js';
import { DomainError } from '../../domain/errors.js';
import { CheckoutSession, SessionItem, type NewSession } from './session.entity.js';
import type { CreateSessionInput } from './session.schemas.js';
import { sessionTotals } from './totals.rules.js';
import { hotQuery } from '../../db/hot-query.js';
import { z } from 'zod';

export interface SessionServiceDeps {
  sessionTtlMs: number;
}


// The session and its items in one statement, so one round trip and atomic without a transaction of its
// own: this is the busiest write of the API, and its cost is its round trips (docs/decisions.md). A named
// prepared statement outside a transaction (`hotQuery`), so PostgreSQL plans it once per connection.
const INSERT_SESSION = `
  with session as (
    insert into checkout_sessions (id, business_id, livemode, user_id, status, currency, subtotal, fee, total, description,
      customer_email, ask_shipping, success_url, cancel_url, failure_url, metadata, expires_at, created_at, updated_at, completed_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $18, $19, $20)
    returning id)
  insert into session_items (id, session_id, position, name, description, price, quantity, image_url, subtotal)
  select item.id, session.id, item.position, item.name, item.description, item.price, item.quantity, item."imageUrl", item.subtotal
  from session, jsonb_to_recordset($21::jsonb) as item(id text, position integer, name text, description text, price bigint,
    quantity integer, "imageUrl" text, subtotal bigint)`;

/**
 * Creates the session and its items. Nothing else: no workflow is started here. The expiry sweep
 * (workflows/checkout-expiry.ts) finds the session by its `expiresAt`, and the first pay starts the
 * session's checkout workflow. Within a transaction (an Idempotency-Key's answer is stored beside it),
 * the statement joins it.
 */
export async function createSession(
  em: EntityManager,
  caller: Caller,
  input: CreateSessionInput,
  deps: SessionServiceDeps,
): Promise<{ session: NewSession; items: SessionItem[] }> {
  const totals = sessionTotals(input.items, caller.business);
  const now = new Date();
  const session: NewSession = {
    id: newSessionId(),
    businessId: caller.businessId,
    livemode: caller.livemode,
    userId: caller.keyId,
    status: 'pending',
    currency: 'USD',
    subtotal: totals.subtotal,
    fee: totals.fee,
    total: totals.total,
    description: input.description,
    customerEmail: input.customer.email,
    askShipping: input.askShipping,
    successUrl: input.urls?.success ?? null,
    cancelUrl: input.urls?.cancel ?? null,
    failureUrl: input.urls?.failure ?? null,
    metadata: input.metadata ?? {},
    expiresAt: new Date(now.getTime() + deps.sessionTtlMs),
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  const items: SessionItem[] = input.items.map((item, position) => ({
    id: newId('item'),
    sessionId: session.id,
    position,
    name: item.name,
    description: item.description ?? null,
    price: item.price,
    quantity: item.quantity,
    imageUrl: item.imageUrl ?? null,
    subtotal: totals.itemSubtotals[position],
  }));
  const s = session;
  await hotQuery(em, 'session-create', INSERT_SESSION, [
    s.id, s.businessId, s.livemode, s.userId, s.status, s.currency, s.subtotal, s.fee, s.total, s.description,
    s.customerEmail, s.askShipping, s.successUrl, s.cancelUrl, s.failureUrl, JSON.stringify(s.metadata), s.expiresAt, s.createdAt, s.updatedAt, s.completedAt,
    JSON.stringify(items),
  ]);
  return { session, items };
}

const UUID = z.uuid();

/** The session, its items and its dispute's id (`disputeOf`: AppDeps.disputeOfSession). */
export async function findSession(em: EntityManager, caller: Caller, id: string, disputeOf: AppDeps['disputeOfSession']) {
  // Another business's or mode's session, or a malformed id, is simply not found.
  const session = UUID.safeParse(id).success
    ? await em.findOne(CheckoutSession, { id, businessId: caller.businessId, livemode: caller.livemode })
    : null;
  if (!session) throw new DomainError('session_not_found');
  const items = await em.find(SessionItem, { sessionId: id }, { orderBy: { position: 'asc' } });
  return { session, items, disputeId: await disputeOf(em, id) };
}
