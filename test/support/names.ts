/** Migrated once by the global setup; each jest worker clones it into a database of its own. */
export const TEMPLATE_DATABASE = 'payments_template';

export function workerDatabaseName(): string {
  return `payments_test_w${process.env.JEST_WORKER_ID ?? '1'}`;
}

/** One task queue per jest worker, so activities run against that worker's own database. */
export function workerTaskQueue(): string {
  return `payments-test-w${process.env.JEST_WORKER_ID ?? '1'}`;
}
