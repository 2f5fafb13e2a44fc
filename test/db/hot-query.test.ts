/**
 * `hotQuery` (src/db/hot-query.ts): one statement text, `$n` parameters bound by the driver, whether it
 * runs on the pool as a prepared statement or on the caller's transaction. Both must give the same rows
 * for the same parameters, an array among them, and inside a transaction it must be that transaction's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hotQuery } from '../../src/db/hot-query.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const require = createRequire(import.meta.url);

const ECHO = `select x, $2::text as word, $3::timestamptz as at from unnest($1::text[]) with ordinality as u(x, n) order by n`;

describe('hotQuery', () => {
  it('gives the same rows outside and inside a transaction, an array parameter bound as one array', async () => {
    const at = new Date('2026-11-27T12:00:00.123Z');
    const params = [['a', "it's", '$1', 'a,b'], "O'Brien; drop table x --", at];
    const outside = await hotQuery<{ x: string; word: string; at: string }>(stack.orm.em.fork(), 'test-echo', ECHO, params);
    const inside = await stack.orm.em.fork().transactional((tx) => hotQuery(tx, 'test-echo', ECHO, params));
    // The ORM's pool hands timestamps back as PostgreSQL's text (its type parsers), in both paths.
    const read = (rows: { x: string; word: string; at: string }[]) => rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
    const expected = ['a', "it's", '$1', 'a,b'].map((x) => ({ x, word: "O'Brien; drop table x --", at: at.toISOString() }));
    expect(read(outside)).toEqual(expected);
    expect(inside).toEqual(outside);
    // An empty array is one (empty) array, not nothing at all.
    expect(await stack.orm.em.fork().transactional((tx) => hotQuery(tx, 'test-echo', ECHO, [[], 'w', at]))).toEqual([]);
  });

  it("runs on the caller's transaction: it sees that transaction's writes, and what it writes rolls back with it", async () => {
    // rate_limit_counters as a scratch table: a key no limiter makes, so nothing else reads or writes it.
    const key = `test:hot-query:${Math.random()}`;
    const count = (em = stack.orm.em.fork()) => hotQuery<{ n: number }>(em, 'test-count', 'select count(*)::int as n from rate_limit_counters where key = any($1::text[])', [[key, `${key}-2`]]);
    await expect(
      stack.orm.em.fork().transactional(async (tx) => {
        await tx.getConnection().execute('insert into rate_limit_counters (key) values (?)', [key], 'run', tx.getTransactionContext());
        expect(await count(tx)).toEqual([{ n: 1 }]);
        await hotQuery(tx, 'test-delete', 'delete from rate_limit_counters where key = any($1::text[])', [[key]]);
        expect(await count(tx)).toEqual([{ n: 0 }]);
        await hotQuery(tx, 'test-insert', 'insert into rate_limit_counters (key) select unnest($1::text[])', [[key, `${key}-2`]]);
        expect(await count(tx)).toEqual([{ n: 2 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count()).toEqual([{ n: 0 }]);
  });
});

describe("hotQuery's Kysely", () => {
  it("is the version MikroORM runs on, so the transaction it is given and the CompiledQuery it is handed come from one copy", () => {
    const ours = JSON.parse(readFileSync('package.json', 'utf8')).dependencies.kysely;
    const mikroOrms = JSON.parse(readFileSync(require.resolve('@mikro-orm/sql/package.json'), 'utf8')).dependencies.kysely;
    expect(ours).toBe(mikroOrms);
  });
});
