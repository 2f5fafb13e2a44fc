import { existsSync } from 'node:fs';
import pg from 'pg';
import { closedLoop } from './temporal.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * F6: the bare cost of one serialised money move: BEGIN; SELECT … FOR UPDATE on one balance row; UPDATE;
 * INSERT one ledger row; COMMIT. Transactions per second with `clients` connections.
 *
 * Returns once its connections' backends have exited and PostgreSQL has reaped them: a backend's CPU
 * time reaches the postmaster's (the figure bench/cpu.ts reads) only then, and it would otherwise be
 * counted in the next measurement's window, as (d)'s withdrawals once were (up to 1 ms a withdrawal).
 */
export async function floorBalanceLock(databaseUrl: string, clients: number, durationMs: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: clients, application_name: 'bench-f6' });
  await pool.query('create table if not exists bench_balance (id int primary key, amount bigint not null)');
  await pool.query('create table if not exists bench_ledger (id bigserial primary key, amount bigint not null)');
  await pool.query('insert into bench_balance values (1, 0) on conflict do nothing');
  try {
    return await closedLoop(clients, durationMs, async () => {
      const c = await pool.connect();
      try {
        await c.query('begin');
        await c.query({ name: 'f6-lock', text: 'select amount from bench_balance where id = 1 for update' });
        await c.query({ name: 'f6-update', text: 'update bench_balance set amount = amount + 1 where id = 1' });
        await c.query({ name: 'f6-insert', text: 'insert into bench_ledger (amount) values (1)' });
        await c.query('commit');
      } finally {
        c.release();
      }
    });
  } finally {
    const { rows } = await pool.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = 'bench-f6'`);
    await pool.end();
    // A reaped process leaves /proc; a zombie (exited, not yet reaped) is still there.
    while (rows.some((r) => existsSync(`/proc/${r.pid}`))) await sleep(20);
  }
}
