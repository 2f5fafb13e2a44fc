/**
 * Every workflow's id, built in one place beside the table of workflow names (workflows.ts), so the
 * runbook's list of ids and the code cannot drift apart. An id names its record, so a second start of
 * the same record is refused as "already started" (the outbox and the fan-out rely on that), and an
 * operator finds a record's workflow from its id alone.
 */

/** A checkout session's payment, from its first pay call (`checkout-<uuid>`). */
export const checkoutWorkflowId = (sessionId: string) => `checkout-${sessionId}`;
/** A refund, from its create to `completed` or `failed` (`refund-ref_…`). */
export const refundWorkflowId = (refundId: string) => `refund-${refundId}`;
/** A withdrawal, from its create to its end (`withdrawal-wd_…`). */
export const withdrawalWorkflowId = (withdrawalId: string) => `withdrawal-${withdrawalId}`;
/** A reserve's release at its `releaseAt` (`reserve-release-res_…`). */
export const reserveReleaseWorkflowId = (reserveId: string) => `reserve-release-${reserveId}`;
/**
 * The release of a share a failed refund or a won chargeback gave back to a reserve
 * (`reserve-release-res_…-after-ref_…`, `…-after-dsp_…`).
 */
export const reserveReleaseAgainWorkflowId = (reserveId: string, sourceId: string) => `${reserveReleaseWorkflowId(reserveId)}-after-${sourceId}`;
/** One webhook delivery, its attempts and retries (`webhook-delivery-whd_…`). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;
/** A dispute, from the acquirer's notice to its close (`dispute-dsp_…`). */
export const disputeWorkflowId = (disputeId: string) => `dispute-${disputeId}`;
/** The session expiry sweep, one per task queue (so every deployment, and every test worker, sweeps its own database). */
export const sessionExpiryWorkflowId = (taskQueue: string) => `session-expiry-${taskQueue}`;
/** The hourly retention schedule, one per task queue, and the id of each run it starts. */
export const retentionScheduleId = (taskQueue: string) => `retention-${taskQueue}`;
export const retentionWorkflowId = (taskQueue: string) => `retention-${taskQueue}`;
