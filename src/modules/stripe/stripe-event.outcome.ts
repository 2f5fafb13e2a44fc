import type { OutboxEntry } from '../outbox/index.js';

/** What an event Stripe delivered came to, recorded on its `acquirer_events` row and counted. */
export type EventOutcome = 'applied' | 'unchanged' | 'duplicate' | 'ignored' | 'unmatched' | 'refused' | 'disagrees';

export interface ReceivedEvent {
  outcome: EventOutcome;
  /** The dispute it concerns, when it names one of ours. */
  disputeId: string | null;
  detail: string | null;
  /** Outbox rows to hand to the process's dispatcher once the transaction has committed. */
  outbox: OutboxEntry[];
  /** A refund of ours moved to `failed`: counted with the event, after its transaction commits. */
  refundFailed?: true;
}
