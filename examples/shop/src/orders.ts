import type { WebhookEvent } from '@payments/webhooks';

/** What the shop sells; prices in dollars, as the API takes them. */
export const PRODUCTS = [
  { id: 'beans', name: 'House blend, 1 kg', price: 24.5 },
  { id: 'mug', name: 'Ceramic mug', price: 12 },
] as const;

export interface Order {
  id: string;
  productId: string;
  email: string;
  sessionId: string | null;
  /** `paid` only on a verified `checkout.succeeded`, never on the redirect back from the hosted page. */
  status:
    | 'awaiting_payment'
    | 'paid'
    | 'payment_failed'
    | 'refund_requested'
    | 'refunded'
    | 'refund_failed'
    | 'disputed'
    | 'dispute_won'
    | 'dispute_lost'
    | 'inquiry_closed';
  /** How many times the order was packed and shipped: must stay at most 1. */
  fulfilments: number;
  refundId: string | null;
  /** The customer's dispute of the payment (`dsp_…`), once the bank opened one: answer it with evidence before its deadline. */
  disputeId: string | null;
  /**
   * Every delivery received for this order, in order: the same event may come more than once, each time
   * as a delivery of its own (`X-Webhook-Delivery-Id`, the id `POST /api/webhooks/retry/:id` takes).
   */
  deliveries: { eventId: string; deliveryId: string; type: string; at: string; event: WebhookEvent }[];
}

/** How a dispute ended, as the order shows it. */
const DISPUTE_OUTCOMES: Partial<Record<string, Order['status']>> = { won: 'dispute_won', lost: 'dispute_lost', warning_closed: 'inquiry_closed' };

/**
 * The shop's orders. In memory, to keep the example short: a real shop keeps them in its database and
 * records each processed event id under a unique constraint in the same transaction as the order's
 * change, which is what makes "exactly once" hold across processes and restarts.
 */
export class OrderBook {
  private readonly orders = new Map<string, Order>();
  private readonly processedEvents = new Set<string>();
  private counter = 1000;

  create(productId: string, email: string): Order {
    const order: Order = { id: `A-${++this.counter}`, productId, email, sessionId: null, status: 'awaiting_payment', fulfilments: 0, refundId: null, disputeId: null, deliveries: [] };
    this.orders.set(order.id, order);
    return order;
  }

  get = (id: string) => this.orders.get(id);
  all = () => [...this.orders.values()].reverse();
  bySession = (sessionId: string) => [...this.orders.values()].find((o) => o.sessionId === sessionId);

  /**
   * Applies a verified event. Deliveries are at least once, so a repeat (same `eventId`) is recorded and
   * otherwise ignored; and fulfilment happens only on the move from awaiting payment to paid.
   */
  apply(event: WebhookEvent, fulfil: (order: Order) => void, deliveryId = ''): void {
    const order = this.orderOf(event);
    if (!order) return; // another shop's session on the same account, or one made outside the shop
    order.deliveries.push({ eventId: event.eventId, deliveryId, type: event.type, at: new Date().toISOString(), event });
    if (this.processedEvents.has(event.eventId)) return;
    this.processedEvents.add(event.eventId);
    switch (event.type) {
      case 'checkout.succeeded':
        if (order.status !== 'awaiting_payment') return;
        order.status = 'paid';
        order.fulfilments += 1;
        fulfil(order);
        return;
      case 'checkout.failed':
        if (order.status === 'awaiting_payment') order.status = 'payment_failed';
        return;
      case 'refund.completed':
        order.status = 'refunded';
        return;
      case 'refund.failed':
        order.status = 'refund_failed';
        return;
      // The customer's bank disputes the payment: hold the order (no more shipping) and gather evidence.
      case 'dispute.created':
        order.status = 'disputed';
        order.disputeId = event.payload.disputeId;
        return;
      case 'dispute.closed':
        order.status = DISPUTE_OUTCOMES[event.payload.status] ?? order.status;
        return;
      default:
        return; // refund.created and the rest: recorded above, nothing to do
    }
  }

  private orderOf(event: WebhookEvent): Order | undefined {
    const payload = event.payload as { sessionId?: string; checkoutSessionId?: string };
    const sessionId = payload.sessionId ?? payload.checkoutSessionId;
    return sessionId ? this.bySession(sessionId) : undefined;
  }
}
