import {
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReserveActivities } from '../activities/reserves.js';
import { reserveReleaseStateQuery, type ReserveReleaseInput, type ReserveReleaseState } from '../contracts/reserves.js';
import { PaymentStatus } from '../contracts/search-attributes.js';

/** The shortest wait before asking again, so clocks a few milliseconds apart cannot spin the loop. */
const MIN_RECHECK_MS = 1000;

const releaseOptions = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '5 minutes' } } as const;
const remoteRelease = proxyActivities<ReserveActivities>(releaseOptions);
// One short transaction: as a local activity, a marker in the workflow task after the timer instead of a
// task-queue round trip (workflows/refunds.ts says why that is as durable).
const localRelease = proxyLocalActivities<ReserveActivities>(releaseOptions);

/**
 * One per reserve (`reserve-release-<res id>`): a durable timer until `releaseAt`, then one transaction
 * that moves whatever the reserve still holds to available. A payment's reserve starts it with Temporal's
 * start delay until `releaseAt` (payment-completion.ts), so its first task comes at the release date and
 * nothing of it runs beside the payment or during the hold: no task, no timer, no place in a worker's
 * cache. The timer is for a run that starts before `releaseAt` all the same (runs started before the
 * delay was used, a share given back before the release). Refunds may have consumed part or all of it
 * meanwhile; the database, not this workflow, knows how much is left. A failed refund that gives a
 * share back after `releaseAt` starts another run (`reserve-release-<res id>-after-<ref id>`), which
 * finds the reserve due and releases the share at once.
 */
export async function reserveReleaseWorkflow(input: ReserveReleaseInput): Promise<ReserveReleaseState> {
  let state: ReserveReleaseState = 'holding';
  setHandler(reserveReleaseStateQuery, () => state);
  setCurrentDetails(`Holding reserve ${input.reserveId} until ${input.releaseAt}`);
  // Runs started before this patch upserted `active` and released through an activity, and replay that way.
  // Since, the payment's start sets `PaymentStatus=active` itself (one action fewer); a start that does not
  // (a share given back by a failed refund) still gets the upsert.
  const lean = patched('local-database-steps');
  const { releaseReserve } = lean ? localRelease : remoteRelease;
  if (!lean || workflowInfo().typedSearchAttributes.get(PaymentStatus) !== 'active') {
    upsertSearchAttributes([{ key: PaymentStatus, value: 'active' }]);
  }

  const wait = Date.parse(input.releaseAt) - Date.now();
  if (wait > 0) await sleep(wait);

  setCurrentDetails(`Releasing reserve ${input.reserveId} to the available balance`);
  let result = await releaseReserve(input.reserveId);
  // The database refuses a release before `releaseAt` (this timer's clock may run ahead of the database
  // host's, or a reset may replay the workflow early): nothing moved, so wait until it is due and ask
  // again. A run recorded before this loop never had `notDueUntil` in its result, so it replays as it was.
  while (result?.notDueUntil) {
    setCurrentDetails(`Reserve ${input.reserveId} is not due until ${result.notDueUntil}; waiting`);
    await sleep(Math.max(Date.parse(result.notDueUntil) - Date.now(), MIN_RECHECK_MS));
    result = await releaseReserve(input.reserveId);
  }
  upsertSearchAttributes([{ key: PaymentStatus, value: result?.status ?? 'missing' }]);
  state = result && result.releasedAmountInCents > 0 ? 'released' : 'nothing_to_release';
  setCurrentDetails(
    state === 'released'
      ? `Released ${result!.releasedAmountInCents} cents of reserve ${input.reserveId}`
      : `Reserve ${input.reserveId} had nothing left to release (${result?.status ?? 'not found'})`,
  );
  return state;
}
