import https from 'node:https';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import { createLogger } from '../../src/log.js';
import { startApi } from '../../src/main/runtime.js';
import { eventually } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });

/** A session create sent and then given up on by its client once `abandon` resolves. */
function abandonedCreate(origin: string, key: string, abandon: Promise<unknown>) {
  const req = https.request(`${origin}/api/checkout/sessions`, {
    method: 'POST',
    ca: readFileSync(process.env.TEST_TLS_CA!),
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  req.on('error', () => {}); // destroyed below, on purpose
  req.end(JSON.stringify({ description: 'Left behind', customer: { email: 'gone@example.com' }, items: [{ name: 'x', price: 1, quantity: 1 }] }));
  void abandon.finally(() => req.destroy()).catch(() => {});
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false))).once('error', () => resolve(true));
  });

describe("the API's close", () => {
  it('waits for a handler still running after its client went away, and only then resolves', async () => {
    const tls = { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) };
    const api = await startApi({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent'), tls });
    const biz = await stack.business();
    const pool = (await stack.orm.em.getConnection().getNativeClient()) as unknown as Pool;
    const holder: PoolClient = await pool.connect();
    let closing: Promise<unknown> | undefined;
    try {
      // Every authenticated request counts itself in this table first: its handler waits on the lock.
      await holder.query('begin');
      await holder.query('lock table rate_limit_counters in share row exclusive mode');
      const waiting = eventually('the request to wait on the lock', async () => {
        const { rows } = await pool.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into rate_limit_counters%'`);
        return rows[0].n > 0;
      });
      abandonedCreate(`https://127.0.0.1:${api.port}`, biz.testKey, waiting);
      await waiting;
      let closed = false;
      closing = api.close().then(() => (closed = true));
      // The server stops at once (its one client is gone); the handler cannot end while the lock is held.
      await eventually('the server to refuse connections', () => refused(api.port));
      await pool.query('select 1');
      expect(closed).toBe(false);
      await holder.query('commit');
      await closing;
      // It ran to its end before close resolved: the session its client never saw is there.
      const { rows } = await pool.query(`select count(*)::int as n from checkout_sessions where business_id = $1`, [biz.id]);
      expect(rows[0].n).toBe(1);
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
      await (closing ?? api.close());
    }
  });
});
