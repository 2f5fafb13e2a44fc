import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { HttpClient } from '../support/http.js';
import { addWalletMethod, balanceOf, creditAvailable, testMode } from '../support/seed.js';
import { until, walletWithdrawal, workflowResult } from './support/flows.js';
import { moneyProblems } from './support/money.js';
import type { ApiProcess } from '../support/stack-processes.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * The API process (`src/main/api.ts`) is SIGKILLed while requests carrying an `Idempotency-Key` are in
 * flight, then started again on the same port. Retrying each request with its key yields exactly one
 * effect. Withdrawals are the request: each is a money move and starts a workflow after its commit.
 */
const stack = useStack({ WITHDRAWAL_PROCESSING_DELAY: '1s' }, { processes: 'api_crash' });
let api: ApiProcess;
let http: HttpClient;

beforeAll(async () => {
  await stack.processes.worker();
  api = await stack.processes.api();
  http = stack.client(api.origin);
}, 120_000);

async function restartApi(): Promise<void> {
  await api.kill('SIGKILL');
  api = await stack.processes.api({ port: api.port });
}

async function fundedBusiness(cents: number) {
  // Retrying every request three times is more than the standard tier's burst allows.
  const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 6_000, rateLimitBurst: 6_000 });
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), cents);
  return biz;
}

const withdraw = (key: string, idempotencyKey: string, dollars: number) =>
  http.post('/api/withdrawals', walletWithdrawal(dollars), { key, headers: { 'Idempotency-Key': idempotencyKey } });

/** A lease a dead request left runs out after 60 s; the test moves it into the past rather than sleep. */
const expireLeases = (businessId: string) =>
  sql(stack, `update idempotency_keys set locked_until = now() - interval '1 second' where business_id = ? and state = 'in_progress'`, [businessId]);

const withdrawalsOf = (businessId: string) =>
  sql<{ id: string; status: string; amount_in_cents: string }>(stack, 'select id, status, amount_in_cents from withdrawals where business_id = ?', [businessId]);

describe('the API killed mid-request', () => {
  it('while the effect waits on the balance lock: no effect, 409 until the lease runs out, then exactly one withdrawal', async () => {
    const biz = await fundedBusiness(10_000);
    const key = randomUUID();

    // Hold the business's balance row, so the request claims its key and then stops inside its effect.
    const blocker = new pg.Client({ connectionString: stack.databaseUrl });
    blocker.on('error', () => undefined); // only if the test fails midway and the server goes first
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('select 1 from balances where business_id = $1 and livemode = false for update', [biz.id]);
    const inFlight = withdraw(biz.testKey, key, 25).then(
      (res) => ({ res, err: null }),
      (err: Error) => ({ res: null, err }),
    );
    await until('the request to wait on the lock', async () => {
      const [row] = await sql(stack, `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`);
      return row.n > 0;
    });
    const [claim] = await sql(stack, 'select state from idempotency_keys where key = ?', [key]);
    expect(claim.state).toBe('in_progress');

    await restartApi();
    try {
      const dropped = await inFlight;
      expect(dropped.res).toBeNull(); // the client saw the connection drop, not an answer
      expect(dropped.err?.message).toMatch(/socket hang up|ECONNRESET/);
    } finally {
      await blocker.query('commit');
      await blocker.end();
    }

    // The dead request's transaction rolled back: nothing was withdrawn.
    await until('the dead request to roll back', async () => {
      const [row] = await sql(stack, `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`);
      return row.n === 0;
    });
    expect(await withdrawalsOf(biz.id)).toEqual([]);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 10_000, pendingWithdrawal: 0 });

    const busy = await withdraw(biz.testKey, key, 25);
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ type: 'idempotency_error', message: 'A request with this Idempotency-Key is in progress' });

    await expireLeases(biz.id);
    const created = await withdraw(biz.testKey, key, 25);
    expect(created.status).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await withdraw(biz.testKey, key, 25);
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.text).toBe(created.text);

    await workflowResult(stack.temporal, `withdrawal-${created.body.data.id}`);
    expect(await withdrawalsOf(biz.id)).toEqual([{ id: created.body.data.id, status: 'completed', amount_in_cents: '2500' }]);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 7_500, pendingWithdrawal: 0 });
  }, 120_000);

  it('under load, at whatever point each request was: every key ends with exactly one withdrawal, and each is paid', async () => {
    const biz = await fundedBusiness(100_000);
    expect((await http.get('/api/withdrawals', { key: biz.testKey })).status).toBe(200); // a warm process
    const keys = Array.from({ length: 40 }, () => randomUUID());
    // Requests start 20 ms apart; the process dies once ten have been answered, with others mid-way
    // (their keys claimed, their effects committed or not) and the rest not yet sent.
    let answered = 0;
    let killed: Promise<void> | undefined;
    const first = keys.map(async (key, i) => {
      await new Promise((r) => setTimeout(r, i * 20));
      // Only a dropped connection counts as dropped: a 5xx or an answer the document does not describe fails.
      const status = await withdraw(biz.testKey, key, 10).then(
        (res) => res.status,
        (err: Error) => {
          if (/socket hang up|ECONNRESET|ECONNREFUSED/.test(err.message)) return 'dropped' as const;
          throw err;
        },
      );
      if (status === 201 && ++answered === 10) killed = restartApi();
      return status;
    });
    const firstAnswers = await Promise.all(first);
    await killed;
    expect(firstAnswers.filter((a) => a === 201).length).toBeGreaterThanOrEqual(10);
    expect(firstAnswers).toContain('dropped');
    expect(firstAnswers.every((a) => a === 201 || a === 'dropped')).toBe(true);

    // The client retries every request with its key: answers are 201 (replayed or new) or 409 while a
    // dead request's lease lasts; once the leases run out, every retry is a 201.
    const retry = () => Promise.all(keys.map((key) => withdraw(biz.testKey, key, 10)));
    for (const res of await retry()) expect([201, 409]).toContain(res.status);
    await expireLeases(biz.id);
    const final = await retry();
    expect(final.map((r) => r.status)).toEqual(keys.map(() => 201));
    const again = await retry();
    expect(again.map((r) => r.text)).toEqual(final.map((r) => r.text));

    const withdrawalIds = new Set(final.map((r) => r.body.data.id as string));
    expect(withdrawalIds.size).toBe(keys.length);
    const rows = await withdrawalsOf(biz.id);
    expect(new Set(rows.map((r) => r.id))).toEqual(withdrawalIds);

    // Every withdrawal's workflow runs, including those whose start the dead API never dispatched (the
    // worker's outbox relay takes those once the dead process's claim lapses, 30 s).
    await until('every withdrawal to be paid', async () => (await withdrawalsOf(biz.id)).every((r) => r.status === 'completed'), 90_000);
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 100_000 - keys.length * 1_000, pendingWithdrawal: 0 });
  }, 180_000);

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
