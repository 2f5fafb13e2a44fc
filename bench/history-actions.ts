/**
 * History events and Temporal actions per business operation, counted from the real histories the
 * replay tests keep (test/replay/histories/, recorded from the dev server by test/replay/record.test.ts).
 * Actions as Temporal Cloud bills them: the workflow start, each activity task scheduled (a retry is
 * another), each timer, each signal and update, each search-attribute upsert, and one per workflow task
 * that records local-activity markers. `npx tsx bench/history-actions.ts` prints the table alone.
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

export function countHistory(events: { eventType: string }[]): Omit<HistoryCount, 'file' | 'operation'> {
  const n = (type: string) => events.filter((e) => e.eventType === `EVENT_TYPE_${type}`).length;
  // Local activities completed in one workflow task cost one action together: count the tasks that record any.
  let markerTasks = 0;
  let markerInTask = false;
  for (const e of events) {
    if (e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') markerInTask = false;
    if (e.eventType === 'EVENT_TYPE_MARKER_RECORDED' && !markerInTask) (markerTasks += 1), (markerInTask = true);
  }
  const c = {
    events: events.length,
    workflowTasks: n('WORKFLOW_TASK_COMPLETED'),
    activities: n('ACTIVITY_TASK_SCHEDULED'),
    localActivityMarkers: n('MARKER_RECORDED'),
    timers: n('TIMER_STARTED'),
    signals: n('WORKFLOW_EXECUTION_SIGNALED'),
    updates: n('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'),
    searchAttributeUpserts: n('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'),
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
      const { events } = JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')) as { events: { eventType: string }[] };
      return { operation: operationOf[file], file, ...countHistory(events) };
    })
    .sort((a, b) => rank(a.operation) - rank(b.operation));
}

function rank(operation: string | undefined): number {
  const i = operation ? Object.keys(OPERATIONS).indexOf(operation) : -1;
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

export function historyCountsMarkdown(counts: HistoryCount[]): string[] {
  return [
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
