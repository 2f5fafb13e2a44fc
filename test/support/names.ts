/** Migrated once by the global setup; each jest worker clones it into a database of its own. */
export const TEMPLATE_DATABASE = 'payments_template';

export function workerDatabaseName(): string {
  return `payments_test_w${process.env.JEST_WORKER_ID ?? '1'}`;
}

/** The jest worker's prefix of its stacks' task queues (each stack adds a suffix of its own: test/support/stack.ts). */
export function workerTaskQueue(): string {
  return `payments-test-w${process.env.JEST_WORKER_ID ?? '1'}`;
}
