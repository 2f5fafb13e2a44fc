import { centsToDecimalString } from '../../domain/money.js';

const dollars = (cents: unknown) => (typeof cents === 'number' ? `$${centsToDecimalString(cents)}` : 'an unknown amount');

/** `2026-12-03T14:03:07.000Z` → `2026-12-03 14:03 UTC`: a date a reader compares with a calendar. */
const dueBy = (at: unknown) => (typeof at === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(at) ? `${at.slice(0, 10)} ${at.slice(11, 16)} UTC` : 'an unknown date');

/** `product_not_received` → `product not received`. */
const words = (text: unknown) => String(text).replaceAll('_', ' ');

const DESTINATIONS: Record<string, string> = { wallet: 'a wallet', crypto: 'a crypto address' };

/**
 * An event in one line for a person (`npm start`'s terminal): what happened to how much money, and the
 * record's id. Null for an event whose outcome gets its own line (a refund created) or for a test ping.
 */
export function eventSummary(type: string, payload: Record<string, unknown>): string | null {
  const p = payload;
  if (type.startsWith('dispute.')) return disputeSummary(type, p);
  switch (type) {
    case 'checkout.succeeded':
      return `payment of ${dollars(p.amount)} succeeded (session ${p.sessionId})`;
    case 'checkout.failed':
      return `payment of ${dollars(p.amount)} failed: ${p.failureMessage} (session ${p.sessionId})`;
    case 'refund.completed':
      return `refund of ${dollars(p.amount)} completed (${p.refundId}, session ${p.sessionId})`;
    case 'refund.failed':
      return `refund of ${dollars(p.amount)} failed: ${p.failureReason} (${p.refundId}, session ${p.sessionId})`;
    case 'withdrawal.paid':
      return `withdrawal of ${dollars(p.amount)} paid to ${DESTINATIONS[String(p.destinationType)] ?? words(p.destinationType)} (${p.withdrawalId})`;
    case 'withdrawal.failed':
      return `withdrawal of ${dollars(p.amount)} failed: ${p.failureReason} (${p.withdrawalId})`;
    case 'webhook_endpoint.disabled':
      return `webhook endpoint ${p.endpointId} (${p.url}) disabled: ${p.reason === 'failing' ? 'its deliveries kept failing' : words(p.reason)}`;
    case 'refund.created':
    case 'webhook.test':
      return null;
    default:
      return `event ${type}`;
  }
}

/**
 * A dispute's events, each with its id, amount and session as the payment lines have theirs, and what
 * the merchant needs next: what kind of dispute it is and why, and by when the evidence is due.
 */
function disputeSummary(type: string, p: Record<string, unknown>): string {
  const what = `dispute of ${dollars(p.amountInCents)}`;
  const ids = `(${p.disputeId}, session ${p.checkoutSessionId})`;
  const due = `evidence due by ${dueBy(p.evidenceDueBy)}`;
  const inquiry = String(p.status).startsWith('warning_');
  switch (type) {
    case 'dispute.created':
      return `${what} opened, ${inquiry ? 'an inquiry' : 'a chargeback'} (${words(p.reason)}): ${due} ${ids}`;
    case 'dispute.funds_withdrawn':
      return `${what}: the amount and the dispute fee were taken from the balance ${ids}`;
    case 'dispute.evidence_due_soon':
      return `${what} still has no evidence: ${due} ${ids}`;
    case 'dispute.updated':
      return p.status === 'under_review' || p.status === 'warning_under_review'
        ? `${what}: evidence submitted, now under review ${ids}`
        : `${what} updated: ${due} ${ids}`;
    case 'dispute.funds_reinstated':
      return `${what} won: the amount was returned to the balance ${ids}`;
    case 'dispute.closed':
      if (p.status === 'won') return `${what} closed: won ${ids}`;
      if (p.status === 'lost') return `${what} closed: lost, the amount stays with the cardholder ${ids}`;
      return `${what} closed: the inquiry ended, no money moved ${ids}`;
    default:
      return `${what}: ${type} ${ids}`;
  }
}
