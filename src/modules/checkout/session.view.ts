import type { CheckoutSession, SessionItem } from './session.entity.js';

/** The spec's shapes of a session: full (create and single read) and list form. */
export function checkoutUrl(base: string, sessionId: string): string {
  return `${base}/checkout/${sessionId}`;
}

export function sessionItemView(item: SessionItem) {
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

export function sessionView(session: CheckoutSession, items: SessionItem[], checkoutBaseUrl: string) {
  return {
    id: session.id,
    businessId: session.businessId,
    userId: session.userId,
    status: session.status,
    currency: session.currency,
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
  };
}

/** List form. `amountInCents` repeats `total` because one list example in the spec shows it. */
export function sessionListView(session: CheckoutSession, checkoutBaseUrl: string) {
  return {
    id: session.id,
    total: session.total,
    amountInCents: session.total,
    currency: session.currency,
    status: session.status,
    checkoutUrl: checkoutUrl(checkoutBaseUrl, session.id),
    customerEmail: session.customerEmail,
    metadata: session.metadata,
    createdAt: session.createdAt.toISOString(),
  };
}
