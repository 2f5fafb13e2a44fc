import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { Business } from '../businesses/index.js';
import { CheckoutSession, SessionItem } from './session.entity.js';

/** What the hosted page renders: the session, its items in order, and whose shop it is. */
export interface CheckoutForPage {
  session: CheckoutSession;
  items: SessionItem[];
  business: { id: string; name: string };
}

const UUID = z.uuid();

/**
 * Loads a session by id alone, for the public hosted page: the unguessable id is the capability, so no
 * caller or mode is checked. A malformed or unknown id is null (the page shows its own not-found).
 */
export async function loadCheckout(em: EntityManager, sessionId: string): Promise<CheckoutForPage | null> {
  if (!UUID.safeParse(sessionId).success) return null;
  const session = await em.findOne(CheckoutSession, { id: sessionId });
  if (!session) return null;
  const [items, business] = await Promise.all([
    em.find(SessionItem, { sessionId }, { orderBy: { position: 'asc' } }),
    em.findOneOrFail(Business, { id: session.businessId }),
  ]);
  return { session, items, business: { id: business.id, name: business.name } };
}
