import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startApi } from '../../src/main/runtime.js';
import { createLogger } from '../../src/log.js';
import { CheckoutSession, createSession } from '../../src/modules/checkout/index.js';
import { Business } from '../../src/modules/businesses/index.js';
import { claimKey, purgeExpiredKeys, storeAnswer } from '../../src/modules/idempotency/idempotency.store.js';
import { requestFingerprint, requestOperation } from '../../src/modules/idempotency/request-fingerprint.rules.js';
import { createHttpClient } from '../support/http.js';
import { eventually } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const body = (description = 'Order #1') => ({
  description,
  customer: { email: 'buyer@example.com' },
  items: [{ name: 'Widget', price: 10, quantity: 1 }],
});
const create = (key: string, payload: unknown = body(), opts: { apiKey?: string; path?: string } = {}) =>
  stack.http.post(opts.path ?? '/api/checkout/sessions', payload, {
    key: opts.apiKey ?? biz.testKey,
    headers: { 'Idempotency-Key': key },
  });
const sessionCount = (businessId = biz.id) => stack.orm.em.fork().count(CheckoutSession, { businessId });
const sql = (query: string, params: unknown[] = []) => stack.orm.em.fork().execute(query, params);

describe('Idempotency-Key on POST', () => {
  it('returns the first answer unchanged, marked Idempotent-Replayed, without a second effect', async () => {
    const key = randomUUID();
    const first = await create(key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await sessionCount();
    const again = await create(key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await sessionCount()).toBe(before);
  });

  it('treats /api/v1 as the same operation as /api', async () => {
    const key = randomUUID();
    const first = await create(key);
    const again = await create(key, body(), { path: '/api/v1/checkout/sessions' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('refuses the same key with a different body: 422 idempotency_error (IETF Idempotency-Key draft)', async () => {
    const key = randomUUID();
    expect((await create(key)).status).toBe(201);
    const res = await create(key, body('Another order'));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'idempotency_error',
      message: 'This Idempotency-Key was used with a different request',
    });
    expect(res.body.error.requestId).toMatch(/^req_/);
  });

  it('does not store validation failures: the key works once the body is fixed', async () => {
    const key = randomUUID();
    const bad = await create(key, { ...body(), items: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('validation_error');
    const fixed = await create(key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('scopes keys to the business and the mode', async () => {
    const key = randomUUID();
    const other = await stack.business();
    const a = await create(key);
    const b = await create(key, body(), { apiKey: other.testKey });
    const live = await create(key, body(), { apiKey: biz.liveKey });
    expect([a.status, b.status, live.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.data.id, b.body.data.id, live.body.data.id]).size).toBe(3);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(live.headers['idempotent-replayed']).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
  ])('refuses a key that is %s: 400 validation_error', async (_name, key) => {
    const res = await create(key);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(res.body.error.errors).toEqual([
      { path: ['Idempotency-Key'], message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
    ]);
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    expect((await create(`${'k'.repeat(250)} ~!@#`)).status).toBe(201);
  });

  it('50 concurrent requests with one key create exactly one session; the rest replay it or get 409', async () => {
    const owner = await stack.business();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(key, body(), { apiKey: owner.testKey })));
    expect(await sessionCount(owner.id)).toBe(1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.error).toMatchObject({ type: 'idempotency_error', message: 'A request with this Idempotency-Key is in progress' });
    }
  });

  it('answers 409 while the first request is in flight, and lets a repeat take over once its lease has run out', async () => {
    const key = randomUUID();
    // The first request claimed the key and then its process died before its effect committed.
    const claim = await claimKey(
      stack.orm,
      { businessId: biz.id, livemode: false, key },
      'POST /api/checkout/sessions',
      requestFingerprint(requestOperation('POST', '/api/checkout/sessions'), body()),
    );
    expect(claim.kind).toBe('claimed');
    const busy = await create(key);
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toBe('A request with this Idempotency-Key is in progress');
    expect((await create(key, body('Different'))).status).toBe(422);

    await sql(`update idempotency_keys set locked_until = now() - interval '1 second' where key = ?`, [key]);
    const retried = await create(key);
    expect(retried.status).toBe(201);
    expect((await create(key)).text).toBe(retried.text);
  });

  it('says in the 409 when to retry: Retry-After (and retryAfter in the body) is what the claim has left, in whole seconds rounded up', async () => {
    const key = randomUUID();
    // A first attempt whose API died 42.5 s into its 60 s claim: 17.5 s left, so 18 (17 if this request is slow to reach it).
    const claim = await claimKey(
      stack.orm,
      { businessId: biz.id, livemode: false, key },
      'POST /api/checkout/sessions',
      requestFingerprint(requestOperation('POST', '/api/checkout/sessions'), body()),
    );
    expect(claim.kind).toBe('claimed');
    await sql(`update idempotency_keys set locked_until = now() + interval '17.5 seconds' where key = ?`, [key]);
    const busy = await create(key);
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ type: 'idempotency_error', message: 'A request with this Idempotency-Key is in progress' });
    expect(['17', '18']).toContain(busy.headers['retry-after']);
    expect(busy.body.error.retryAfter).toBe(Number(busy.headers['retry-after']));
  });

  it('answers 409 to a repeat while the first request is really still running, then replays its answer', async () => {
    const owner = await stack.business();
    const key = randomUUID();
    // Hold the first request inside its effect: it has claimed the key, and its session insert waits
    // for this lock. Nothing else in this file writes sessions meanwhile (tests run one at a time).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const lock = stack.orm.em.fork().transactional(async (tx) => {
      await tx.execute('lock table checkout_sessions in share mode');
      locked();
      await held;
    });
    await lockTaken;
    try {
      let firstAnswered = false;
      const first = create(key, body(), { apiKey: owner.testKey }).finally(() => (firstAnswered = true));
      await eventually('the first request claims the key', async () => (await sql('select 1 from idempotency_keys where key = ?', [key])).length === 1);
      const busy = await create(key, body(), { apiKey: owner.testKey });
      expect(busy.status).toBe(409);
      expect(firstAnswered).toBe(false);
      // A claim just taken has its whole lease (60 s) left: the retry is told to come back then at the latest.
      const retryAfter = Number(busy.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(55);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(busy.body).toEqual({
        success: false,
        error: { type: 'idempotency_error', message: 'A request with this Idempotency-Key is in progress', requestId: expect.stringMatching(/^req_/), retryAfter },
      });
      // A different body under the key is still the reused-key error, in flight or not.
      expect((await create(key, body('Different'), { apiKey: owner.testKey })).status).toBe(422);
      release();
      await lock;
      const done = await first;
      expect(done.status).toBe(201);
      expect(done.headers['idempotent-replayed']).toBeUndefined();
      const again = await create(key, body(), { apiKey: owner.testKey });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(done.text);
      expect(await sessionCount(owner.id)).toBe(1);
    } finally {
      release();
      await lock.catch(() => undefined);
    }
  });

  it('never commits an effect whose answer cannot be stored (the claim was taken over)', async () => {
    const owner = await stack.business();
    const scope = { businessId: owner.id, livemode: false, key: randomUUID() };
    const first = await claimKey(stack.orm, scope, 'POST /api/checkout/sessions', 'fp');
    await sql(`update idempotency_keys set locked_until = now() - interval '1 second' where key = ?`, [scope.key]);
    const second = await claimKey(stack.orm, scope, 'POST /api/checkout/sessions', 'fp');
    expect([first.kind, second.kind]).toEqual(['claimed', 'claimed']);
    const business = await stack.orm.em.fork().findOneOrFail(Business, { id: owner.id });
    const caller = { businessId: owner.id, livemode: false, keyId: 'key_x', scope: 'full' as const, business };
    const input = { ...body(), askShipping: false, items: [{ name: 'Widget', price: 1000, quantity: 1 }] };
    const slowFirst = stack.orm.em.fork().transactional(async (tx) => {
      await createSession(tx, caller, input, { sessionTtlMs: 60_000 });
      if (!(await storeAnswer(tx, scope, (first as { token: string }).token, 201, '{}'))) throw new Error('lease lost');
    });
    await expect(slowFirst).rejects.toThrow('lease lost');
    expect(await sessionCount(owner.id)).toBe(0);
  });

  it('ignores the header on other methods', async () => {
    const res = await stack.http.get('/api/checkout/sessions', { key: biz.testKey, headers: { 'Idempotency-Key': '' } });
    expect(res.status).toBe(200);
  });

  it('replays the stored answer from a new API process on the same database', async () => {
    const tls = { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) };
    const ca = readFileSync(process.env.TEST_TLS_CA!);
    const deps = { config: stack.config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent'), tls };
    const key = randomUUID();
    const post = (origin: string) => {
      const client = createHttpClient(origin, ca);
      return client
        .post('/api/checkout/sessions', body(), { key: biz.testKey, headers: { 'Idempotency-Key': key } })
        .finally(() => client.close());
    };
    const firstApi = await startApi(deps);
    const first = await post(firstApi.origin);
    await firstApi.close();
    const secondApi = await startApi(deps);
    try {
      const again = await post(secondApi.origin);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
    } finally {
      await secondApi.close();
    }
  });
});

describe('expired keys', () => {
  it('are purged after 24 hours, and the key is then free again', async () => {
    const key = randomUUID();
    const first = await create(key);
    await sql(`update idempotency_keys set expires_at = now() - interval '1 second' where key = ?`, [key]);
    expect(await purgeExpiredKeys(stack.orm)).toBeGreaterThanOrEqual(1);
    expect(await sql('select 1 from idempotency_keys where key = ?', [key])).toHaveLength(0);
    const again = await create(key);
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });
});
