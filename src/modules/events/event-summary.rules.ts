import { centsToDecimalString } from '../../domain/money.js';

const dollars = (cents: unknown) => (typeof cents === 'number' ? `$${centsToDecimalString(cents)}` : 'an unknown amount');

/**
 * An event in one line for a person (`npm start`'s terminal): what happened to how much money, and the
 * record's id. Null for an event whose outcome gets its own line (a refund created) or for a test ping.
 */
export function eventSummary(type: string, payload: Record<string, unknown>): string | null {
  const p = payload;
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
      return `withdrawal of ${dollars(p.amount)} paid to its ${p.destinationType} (${p.withdrawalId})`;
    case 'withdrawal.failed':
      return `withdrawal of ${dollars(p.amount)} failed: ${p.failureReason} (${p.withdrawalId})`;
    case 'webhook_endpoint.disabled':
      return `webhook endpoint ${p.endpointId} disabled (${p.reason}): ${p.url}`;
    case 'refund.created':
    case 'webhook.test':
      return null;
    default:
      return `event ${type}`;
  }
}
