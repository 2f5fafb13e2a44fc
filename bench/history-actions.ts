/**
 * History events and Temporal actions per business operation, counted from the real histories the
 * replay tests keep (test/replay/histories/, recorded from the dev server by test/replay/record.test.ts).
 * Actions as Temporal Cloud bills them: the workflow start, each activity task scheduled (a retry is
 * another), each timer (a `condition` with a timeout too), each signal and update, each search-attribute
 * upsert (those given at the start are free), and one per workflow task that records local-activity
 * markers; `patched()` markers and its `TemporalChangeVersion` upsert are not actions
 * (docs.temporal.io/cloud/actions). `npx tsx bench/history-actions.ts` prints the table alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HISTORIES = fileURLToPath(new URL('../test/replay/histories/', import.meta.url));

/** The branch that stands for each business operation in the bench report (the usual, successful one). */
export const OPERATIONS: Record<string, string> = {
  payment: 'checkout-payment-succeeded.json',
  refund: 'refund-completed.json',
  withdrawal: 'withdrawal-paid.json',
  'webhook delivery': 'webhook-delivery-first-try.json',
  'reserve release': 'reserve-release-released.json',
};

/**
 * The same operations recorded before the local database steps (`patched('local-database-steps')`: the
 * short database steps as local activities, the reserve's `active` status set at its start). Those
 * fixtures stay for replay; here they are the "before" column.
 */
export const BEFORE: Record<string, string> = {
  payment: 'checkout-payment-succeeded-before-local-steps.json',
  refund: 'refund-completed-before-local-steps.json',
  withdrawal: 'withdrawal-paid-before-local-steps.json',
  'reserve release': 'reserve-release-released-before-local-steps.json',
  // Before `patched('webhook-local-attempts')`: the attempt as an activity, a second workflow task.
  'webhook delivery': 'webhook-delivery-first-try-before-local-attempts.json',
};

export interface HistoryCount {
  operation?: string;
  file: string;
  events: number;
  actions: number;
  workflowTasks: number;
  activities: number;
  localActivityMarkers: number;
  timers: number;
  signals: number;
  updates: number;
  searchAttributeUpserts: number;
}

type HistoryEvent = {
  eventType: string;
  markerRecordedEventAttributes?: { markerName?: string };
  upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, unknown> } };
};

/** An upsert of the SDK's own `TemporalChangeVersion` (what `patched()` records) alone: exempt from actions. */
const versionOnly = (e: HistoryEvent) => {
  const fields = Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
  return fields.length > 0 && fields.every((f) => f === 'TemporalChangeVersion');
};

export function countHistory(events: HistoryEvent[]): Omit<HistoryCount, 'file' | 'operation'> {
  const n = (type: string) => events.filter((e) => e.eventType === `EVENT_TYPE_${type}`).length;
  // A `patched()` marker (core_patch) is no action; a local activity's (core_local_activity) is, and
  // the local activities completed in one workflow task cost one together: count the tasks that record any.
  const isLocalActivity = (e: HistoryEvent) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED' && e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
  let markerTasks = 0;
  let markerInTask = false;
  for (const e of events) {
    if (e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') markerInTask = false;
    if (isLocalActivity(e) && !markerInTask) (markerTasks += 1), (markerInTask = true);
  }
  const c = {
    events: events.length,
    workflowTasks: n('WORKFLOW_TASK_COMPLETED'),
    activities: n('ACTIVITY_TASK_SCHEDULED'),
    localActivityMarkers: events.filter(isLocalActivity).length,
    timers: n('TIMER_STARTED'),
    signals: n('WORKFLOW_EXECUTION_SIGNALED'),
    updates: n('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'),
    searchAttributeUpserts: events.filter((e) => e.eventType === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES' && !versionOnly(e)).length,
  };
  const starts = n('WORKFLOW_EXECUTION_STARTED') + n('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  return { ...c, actions: starts + c.activities + markerTasks + c.timers + c.signals + c.updates + c.searchAttributeUpserts };
}

/** Every recorded history, the five operations first. */
export function historyCounts(): HistoryCount[] {
  const index = JSON.parse(readFileSync(path.join(HISTORIES, 'index.json'), 'utf8')) as { file: string }[];
  const operationOf = Object.fromEntries(Object.entries(OPERATIONS).map(([op, file]) => [file, op]));
  return index
    .map(({ file }) => {
      const { events } = JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')) as { events: HistoryEvent[] };
      return { operation: operationOf[file], file, ...countHistory(events) };
    })
    .sort((a, b) => rank(a.operation) - rank(b.operation));
}

function rank(operation: string | undefined): number {
  const i = operation ? Object.keys(OPERATIONS).indexOf(operation) : -1;
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

/** Per operation, its history before and after the reductions (the same file where nothing changed). */
export function beforeAndAfter(counts: HistoryCount[]) {
  const byFile = new Map(counts.map((c) => [c.file, c]));
  return Object.entries(OPERATIONS).map(([operation, file]) => ({
    operation,
    before: byFile.get(BEFORE[operation] ?? file) ?? null,
    after: byFile.get(file) ?? null,
  }));
}

export function beforeAndAfterMarkdown(counts: HistoryCount[]): string[] {
  const pair = (b: number | undefined, a: number | undefined) => (b === a ? `${a ?? '–'}` : `${b ?? '–'} → ${a ?? '–'}`);
  return [
    '| operation | actions | history events | activities | local-activity markers | SA upserts | workflow tasks |',
    '|---|---|---|---|---|---|---|',
    ...beforeAndAfter(counts).map(
      ({ operation, before: b, after: a }) =>
        `| ${operation} | ${pair(b?.actions, a?.actions)} | ${pair(b?.events, a?.events)} | ${pair(b?.activities, a?.activities)} | ${pair(b?.localActivityMarkers, a?.localActivityMarkers)} | ${pair(b?.searchAttributeUpserts, a?.searchAttributeUpserts)} | ${pair(b?.workflowTasks, a?.workflowTasks)} |`,
    ),
  ];
}

export function historyCountsMarkdown(counts: HistoryCount[]): string[] {
  return [
    'Per business operation, before → after (recorded histories, test/replay/histories/):',
    '',
    ...beforeAndAfterMarkdown(counts),
    '',
    'Every recorded history:',
    '',
    '| operation (recorded history) | events | actions | activities | local-activity markers | timers | signals | updates | SA upserts | workflow tasks |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...counts.map(
      (c) =>
        `| ${c.operation ? `**${c.operation}** (${c.file})` : c.file} | ${c.events} | ${c.actions} | ${c.activities} | ${c.localActivityMarkers} | ${c.timers} | ${c.signals} | ${c.updates} | ${c.searchAttributeUpserts} | ${c.workflowTasks} |`,
    ),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.stdout.write(`${historyCountsMarkdown(historyCounts()).join('\n')}\n`);
}
