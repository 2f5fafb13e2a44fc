/**
 * "No money created, lost or moved twice", checked from the rows after a fault: `ledger verify` (the
 * operator's own check), and that every withdrawal and refund carries exactly the postings its status
 * calls for, no fewer and no more.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { verifyLedger } from '../../../src/modules/ledger/index.js';

/** The ledger postings each status calls for, in order. */
const WITHDRAWAL_POSTINGS: Record<string, string[]> = {
  pending: ['withdrawal.created'],
  processing: ['withdrawal.created'],
  completed: ['withdrawal.created', 'withdrawal.paid'],
  failed: ['withdrawal.created', 'withdrawal.failed'],
  cancelled: ['withdrawal.created', 'withdrawal.cancelled'],
};
const REFUND_POSTINGS: Record<string, string[]> = {
  pending: ['refund.created'],
  processing: ['refund.created'],
  completed: ['refund.created', 'refund.completed'],
  failed: ['refund.created', 'refund.failed'],
};

async function tableExists(orm: MikroORM, table: string): Promise<boolean> {
  const [row] = await orm.em.getConnection().execute<{ found: string | null }[]>(`select to_regclass(?) as found`, [table]);
  return row.found !== null;
}

async function postingProblems(orm: MikroORM, table: string, expected: Record<string, string[]>): Promise<string[]> {
  if (!(await tableExists(orm, table))) return [];
  const rows = await orm.em.getConnection().execute<{ id: string; status: string; kinds: string[] | null }[]>(
    `select r.id, r.status, array_agg(t.kind order by t.created_at, t.kind) filter (where t.id is not null) as kinds
     from ${table} r left join ledger_transactions t on t.reference_id = r.id
     group by r.id, r.status`,
  );
  return rows
    .filter((r) => JSON.stringify(r.kinds ?? []) !== JSON.stringify(expected[r.status]))
    .map((r) => `${table} ${r.id} is ${r.status} with postings ${JSON.stringify(r.kinds ?? [])}`);
}

export async function moneyProblems(orm: MikroORM): Promise<string[]> {
  const { problems } = await verifyLedger(orm.em.fork());
  return [
    ...problems,
    ...(await postingProblems(orm, 'withdrawals', WITHDRAWAL_POSTINGS)),
    ...(await postingProblems(orm, 'refunds', REFUND_POSTINGS)),
  ];
}
