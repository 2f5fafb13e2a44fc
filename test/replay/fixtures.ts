/**
 * The recorded histories under test/replay/histories/: one JSON file per workflow run, written by
 * `npm run record-histories` from the real dev server (never by hand), and an index naming each run's
 * workflow id, type and branch. test/replay/replay.test.ts replays every one against the current code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { parseHistoryJSON } from './history-json.js';

export const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));
const INDEX_FILE = `${HISTORIES_DIR}index.json`;

export interface Fixture {
  /** The history's file in HISTORIES_DIR, as `historyToJSON` wrote it. */
  file: string;
  workflowId: string;
  workflowType: string;
  /** The path through the workflow this run took, in plain words (e.g. `refund failed`). */
  branch: string;
  /** When the run was recorded, and with which code (`current`, or the commit of an older workflow). */
  recordedAt: string;
  recordedWith: string;
  /**
   * Kept until this date at least: the recording date plus the longest timer an open run of this
   * code can still be waiting on (90 days: a reserve's hold). See docs/decisions.md, Workflow versioning.
   */
  keepUntil: string;
}

export function readIndex(): Fixture[] {
  try {
    return JSON.parse(readFileSync(INDEX_FILE, 'utf8')) as Fixture[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

export function writeIndex(fixtures: Fixture[]): void {
  const sorted = [...fixtures].sort((a, b) => a.file.localeCompare(b.file));
  writeFileSync(INDEX_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}

export function readHistory(fixture: Fixture): History {
  return parseHistoryJSON(JSON.parse(readFileSync(`${HISTORIES_DIR}${fixture.file}`, 'utf8')));
}
