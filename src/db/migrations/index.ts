import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';
import { Migration20261121010000_ledger } from './Migration20261121010000_ledger.js';
import { Migration20261121020000_payments } from './Migration20261121020000_payments.js';
import { Migration20261121030000_withdrawals } from './Migration20261121030000_withdrawals.js';
import { Migration20261121031000_refunds } from './Migration20261121031000_refunds.js';
import { Migration20261121040000_webhooks } from './Migration20261121040000_webhooks.js';
import { Migration20261121050000_platform } from './Migration20261121050000_platform.js';
import { Migration20261121060000_unlogged_counters } from './Migration20261121060000_unlogged_counters.js';
import { Migration20261121070000_outbox_notify } from './Migration20261121070000_outbox_notify.js';
import { Migration20261121080000_payment_attempt } from './Migration20261121080000_payment_attempt.js';
import { Migration20261121090000_session_expiry_index } from './Migration20261121090000_session_expiry_index.js';
import { Migration20261124020000_simulator_charges } from './Migration20261124020000_simulator_charges.js';
import { Migration20261124030000_refund_reserve_parts } from './Migration20261124030000_refund_reserve_parts.js';
import { Migration20261124060000_api_key_notify } from './Migration20261124060000_api_key_notify.js';
import { Migration20261124070000_webhook_operations } from './Migration20261124070000_webhook_operations.js';
import { Migration20261124080000_webhook_throttle_gate } from './Migration20261124080000_webhook_throttle_gate.js';
import { Migration20261125000000_list_filter_indexes } from './Migration20261125000000_list_filter_indexes.js';
import { Migration20261126000000_disputes } from './Migration20261126000000_disputes.js';
import { Migration20261126010000_webhook_recovery_index } from './Migration20261126010000_webhook_recovery_index.js';
import { Migration20261126020000_row_counts } from './Migration20261126020000_row_counts.js';
import { Migration20261126030000_history_indexes } from './Migration20261126030000_history_indexes.js';
import { Migration20261127010000_processing_index } from './Migration20261127010000_processing_index.js';
import { Migration20261127020000_dispute_reinstatement } from './Migration20261127020000_dispute_reinstatement.js';
import { Migration20261127021000_delivery_event_time } from './Migration20261127021000_delivery_event_time.js';
import { Migration20261127022000_event_sequence } from './Migration20261127022000_event_sequence.js';
import { Migration20261128010000_acquirer } from './Migration20261128010000_acquirer.js';
import { Migration20261128020000_refused_attempts } from './Migration20261128020000_refused_attempts.js';
import { Migration20261128030000_simulator_money_moves } from './Migration20261128030000_simulator_money_moves.js';
import { Migration20261128124000_api_key_insert_notify } from './Migration20261128124000_api_key_insert_notify.js';
import { Migration20261128140000_evidence_refusal } from './Migration20261128140000_evidence_refusal.js';

/**
 * Every migration in order. Listed explicitly (not globbed) so the same list runs under tsx, jest and a
 * bundled build. Append new ones at the end; never edit one that has shipped.
 */
export const migrationsList = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121010000_ledger', class: Migration20261121010000_ledger },
  { name: 'Migration20261121020000_payments', class: Migration20261121020000_payments },
  { name: 'Migration20261121030000_withdrawals', class: Migration20261121030000_withdrawals },
  { name: 'Migration20261121031000_refunds', class: Migration20261121031000_refunds },
  { name: 'Migration20261121040000_webhooks', class: Migration20261121040000_webhooks },
  { name: 'Migration20261121050000_platform', class: Migration20261121050000_platform },
  { name: 'Migration20261121060000_unlogged_counters', class: Migration20261121060000_unlogged_counters },
  { name: 'Migration20261121070000_outbox_notify', class: Migration20261121070000_outbox_notify },
  { name: 'Migration20261121080000_payment_attempt', class: Migration20261121080000_payment_attempt },
  { name: 'Migration20261121090000_session_expiry_index', class: Migration20261121090000_session_expiry_index },
  { name: 'Migration20261124020000_simulator_charges', class: Migration20261124020000_simulator_charges },
  { name: 'Migration20261124030000_refund_reserve_parts', class: Migration20261124030000_refund_reserve_parts },
  { name: 'Migration20261124060000_api_key_notify', class: Migration20261124060000_api_key_notify },
  { name: 'Migration20261124070000_webhook_operations', class: Migration20261124070000_webhook_operations },
  { name: 'Migration20261124080000_webhook_throttle_gate', class: Migration20261124080000_webhook_throttle_gate },
  { name: 'Migration20261125000000_list_filter_indexes', class: Migration20261125000000_list_filter_indexes },
  { name: 'Migration20261126000000_disputes', class: Migration20261126000000_disputes },
  { name: 'Migration20261126010000_webhook_recovery_index', class: Migration20261126010000_webhook_recovery_index },
  { name: 'Migration20261126020000_row_counts', class: Migration20261126020000_row_counts },
  { name: 'Migration20261126030000_history_indexes', class: Migration20261126030000_history_indexes },
  { name: 'Migration20261127010000_processing_index', class: Migration20261127010000_processing_index },
  { name: 'Migration20261127020000_dispute_reinstatement', class: Migration20261127020000_dispute_reinstatement },
  { name: 'Migration20261127021000_delivery_event_time', class: Migration20261127021000_delivery_event_time },
  { name: 'Migration20261127022000_event_sequence', class: Migration20261127022000_event_sequence },
  { name: 'Migration20261128010000_acquirer', class: Migration20261128010000_acquirer },
  { name: 'Migration20261128020000_refused_attempts', class: Migration20261128020000_refused_attempts },
  { name: 'Migration20261128030000_simulator_money_moves', class: Migration20261128030000_simulator_money_moves },
  { name: 'Migration20261128124000_api_key_insert_notify', class: Migration20261128124000_api_key_insert_notify },
  { name: 'Migration20261128140000_evidence_refusal', class: Migration20261128140000_evidence_refusal },
];
