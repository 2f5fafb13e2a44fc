import { createLogger } from '../../src/log.js';
import { API_KEY_LISTENER_NAME, createApiKeyCache, type ApiKeyCache } from '../../src/modules/businesses/api-key.cache.js';
import { revokeApiKey } from '../../src/modules/businesses/index.js';
import { useStack } from '../support/use-stack.js';

/**
 * The API key cache on its own (src/modules/businesses/api-key.cache.ts): served while it LISTENs, emptied
 * by a change's NOTIFY, and failing closed (the database read every time) while its listener is down.
 */
const caches: ApiKeyCache<string>[] = [];
// Declared first, so the caches close before the stack stops (hooks run in the order declared).
afterAll(async () => {
  await Promise.all(caches.map((c) => c.close()));
});
const stack = useStack({}, { worker: false });

const sql = <T = any>(query: string, params: unknown[] = []) => stack.orm.em.fork().getConnection().execute<T[]>(query, params);
const cacheOf = (options: Parameters<typeof createApiKeyCache>[2] = {}) => {
  const cache = createApiKeyCache<string>(stack.orm, createLogger('silent'), options);
  caches.push(cache);
  return cache;
};

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

/**
 * Runs `change` and, while `cache` listens, waits until the cache has heard of it: making a business
 * notifies (an insert does, so a key refused a moment before works once made), and that notification
 * must not empty the cache under what the test reads next. A sentinel held before the change is
 * forgotten only by a notification that came after it.
 */
async function heardOf<T>(cache: ApiKeyCache<string> | undefined, change: () => Promise<T>): Promise<T> {
  if (!cache?.listening) return change();
  const sentinel = `sentinel-${Math.random()}`;
  let loads = 0;
  const loaded = async () => {
    const before = loads;
    await cache.get(sentinel, async () => (loads++, 'sentinel'));
    return loads > before;
  };
  await until('the sentinel to be held', async () => !(await loaded()));
  const result = await change();
  await until('the change to be heard', loaded, 30_000);
  return result;
}

/** A business's test key and a loader that reads it as the auth middleware does (null once revoked). */
async function testKey(cache?: ApiKeyCache<string>) {
  const biz = await heardOf(cache, () => stack.business());
  const [{ id }] = await sql<{ id: string }>(`select id from api_keys where business_id = ? and mode = 'test'`, [biz.id]);
  const counter = { loads: 0 };
  const load = async () => {
    counter.loads++;
    const [row] = await sql<{ id: string }>('select id from api_keys where id = ? and revoked_at is null', [id]);
    return row?.id ?? null;
  };
  return { id, load, counter };
}

it('serves a key from memory while listening, and forgets it when a revocation commits', async () => {
  // Entries kept an hour: only the revocation's notification can make the cache forget this one.
  const cache = cacheOf({ ttlMs: 3_600_000 });
  await until('the cache to listen', () => cache.listening);
  const key = await testKey(cache);
  expect(await cache.get(key.id, key.load)).toBe(key.id);
  expect(await cache.get(key.id, key.load)).toBe(key.id);
  expect(key.counter.loads).toBe(1);
  await revokeApiKey(stack.orm.em.fork(), key.id);
  // The notification, not the clock: waited for generously (a loaded machine), far inside the hour.
  await until('the revocation to reach the cache', async () => (await cache.get(key.id, key.load)) === null, 30_000);
  expect(key.counter.loads).toBe(2); // read once more, after the notification emptied the cache
});

it('a dropped listener fails closed: nothing is served from memory until it listens again, and it comes back empty', async () => {
  // Back after 5 s: what the test does while nobody listens (an update, a business made, three lookups)
  // must all happen before the listener returns, and on a busy machine 1.5 s was not always enough.
  const cache = cacheOf({ reconnectMs: 5_000 });
  await until('the cache to listen', () => cache.listening);
  const [a, b] = [await testKey(cache), await testKey(cache)];
  for (const key of [a, b]) {
    await cache.get(key.id, key.load);
    expect(await cache.get(key.id, key.load)).toBe(key.id);
    expect(key.counter.loads).toBe(1);
  }

  await sql('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ? and datname = current_database()', [API_KEY_LISTENER_NAME]);
  await until('the cache to notice its listener is gone', () => !cache.listening);
  // Revoked while nobody listens: the notification reaches no one.
  await sql('update api_keys set revoked_at = now() where id in (?)', [[a.id, b.id]]);
  expect(await cache.get(a.id, a.load)).toBeNull();
  // Every lookup reads the database while the listener is down, found or not.
  const live = await testKey();
  await cache.get(live.id, live.load);
  await cache.get(live.id, live.load);
  expect(live.counter.loads).toBe(2);

  await until('the cache to listen again', () => cache.listening, 10_000);
  expect(await cache.get(b.id, b.load)).toBeNull();
  expect(await cache.get(live.id, live.load)).toBe(live.id);
  expect(await cache.get(live.id, live.load)).toBe(live.id);
  expect(live.counter.loads).toBe(3);
});

it('remembers an unknown key briefly, and forgets it when a key or business changes, so a key made for it works at once', async () => {
  const cache = cacheOf({ ttlMs: 3_600_000, missTtlMs: 3_600_000 });
  await until('the cache to listen', () => cache.listening);
  let exists = false;
  let loads = 0;
  const load = async () => {
    loads++;
    return exists ? 'found' : null;
  };
  // A flood of one unknown key reads the database once, not once a request.
  for (let i = 0; i < 5; i++) expect(await cache.get('unknown-hash', load)).toBeNull();
  expect(loads).toBe(1);
  // A new key (any change to api_keys or businesses) notifies, and the miss is forgotten with the rest.
  exists = true;
  await stack.business();
  await until('the new key to be read', async () => (await cache.get('unknown-hash', load)) === 'found', 30_000);
  expect(loads).toBe(2);
});

it('keeps unknown keys apart from known ones: a flood of made-up keys evicts no real key', async () => {
  const cache = cacheOf({ maxEntries: 3 });
  await until('the cache to listen', () => cache.listening);
  const key = await testKey(cache);
  await cache.get(key.id, key.load);
  for (let i = 0; i < 10; i++) await cache.get(`made-up-${i}`, async () => null);
  expect(await cache.get(key.id, key.load)).toBe(key.id);
  expect(key.counter.loads).toBe(1);
});
