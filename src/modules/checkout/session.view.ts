import type { z } from 'zod';
import type { CheckoutSession, NewSession, SessionItem } from './session.entity.js';
import type { SessionListItemResource, SessionResource, sessionItemResource } from './session.schemas.js';

/** USD is the only currency the service takes (the spec: "All money is in USD"). */
const usd = (currency: string) => currency as 'USD';

/** The spec's shapes of a session: full (create and single read) and list form. */
export function checkoutUrl(base: string, sessionId: string): string {
  return `${base}/checkout/${sessionId}`;
}

export function sessionItemView(item: SessionItem): z.output<typeof sessionItemResource> {
  return {
    id: item.id,
    sessionId: item.sessionId,
    name: item.name,
    description: item.description ?? null,
    price: item.price,
    quantity: item.quantity,
    imageUrl: item.imageUrl ?? null,
    subtotal: item.subtotal,
  };
}

/** `disputeId`: a new session has none; the single read looks it up. */
export function sessionView(session: NewSession, items: SessionItem[], checkoutBaseUrl: string, disputeId: string | null = null): SessionResource {
  return {
    id: session.id,
    businessId: session.businessId,
    userId: session.userId,
    status: session.status,
    currency: usd(session.currency),
    subtotal: session.subtotal,
    fee: session.fee,
    total: session.total,
    description: session.description,
    customerEmail: session.customerEmail,
    askShipping: session.askShipping,
    successUrl: session.successUrl ?? null,
    cancelUrl: session.cancelUrl ?? null,
    failureUrl: session.failureUrl ?? null,
    checkoutUrl: checkoutUrl(checkoutBaseUrl, session.id),
    metadata: session.metadata,
    livemode: session.livemode,
    items: items.map(sessionItemView),
    expiresAt: session.expiresAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
    completedAt: session.completedAt?.toISOString() ?? null,
    disputeId,
  };
}

/** List form. `amountInCents` repeats `total` because one list example in the spec shows it. */
export function sessionListView(session: CheckoutSession, checkoutBaseUrl: string): SessionListItemResource {
  return {
    id: session.id,
    total: session.total,
    amountInCents: session.total,
    currency: usd(session.currency),
    status: session.status,
    checkoutUrl: checkoutUrl(checkoutBaseUrl, session.id),
    customerEmail: session.customerEmail,
    metadata: session.metadata,
    createdAt: session.createdAt.toISOString(),
  };
}
