import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const URL_OK = 'https://merchant.example/webhooks';
const create = (body: unknown, key = biz.testKey) => stack.http.post('/api/webhooks', body, { key });

describe('POST /api/webhooks', () => {
  it('creates an endpoint and shows its whsec_ secret once', async () => {
    const res = await create({ url: URL_OK, events: ['checkout.succeeded', 'refund.created'] });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const { endpoint, secret } = res.body.data;
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f]{32}$/),
      url: URL_OK,
      events: ['checkout.succeeded', 'refund.created'],
      enabled: true,
      isActive: true,
      description: null,
      livemode: false,
      disabledReason: null,
      disabledAt: null,
      rateLimitPerSecond: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const read = await stack.http.get(`/api/webhooks/${endpoint.id}`, { key: biz.testKey });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(secret);
    expect(read.text).not.toMatch(/secret/i);
  });

  it('stores the secret encrypted, never in the clear', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const [row] = await stack.orm.em
      .getConnection()
      .execute('select secret_sealed from webhook_endpoints where id = ?', [body.data.endpoint.id]);
    expect(row.secret_sealed).toMatch(/^v1:/);
    expect(row.secret_sealed).not.toContain(body.data.secret.slice('whsec_'.length));
  });

  it('accepts *, the spec aliases, and a description', async () => {
    const res = await create({ url: URL_OK, events: ['*', 'checkout.completed', 'withdrawal.completed'], description: 'Orders' });
    expect(res.status).toBe(201);
    expect(res.body.data.endpoint.events).toEqual(['*', 'checkout.completed', 'withdrawal.completed']);
    expect(res.body.data.endpoint.description).toBe('Orders');
  });

  it.each([
    ['http://merchant.example/webhooks'],
    ['ftp://merchant.example/webhooks'],
    ['not a url'],
  ])('refuses %s with 400 "URL must be HTTPS"', async (url) => {
    const res = await create({ url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'validation_error',
      message: 'URL must be HTTPS',
      errors: [{ path: ['url'], message: 'URL must be HTTPS' }],
    });
  });

  it('accepts an upper-case scheme and stores it lower-case', async () => {
    const res = await create({ url: 'HTTPS://Merchant.example/Hooks', events: ['*'] });
    expect(res.status).toBe(201);
    expect(res.body.data.endpoint.url).toBe('https://Merchant.example/Hooks');
  });

  it('requires a non-empty list of known event types', async () => {
    const empty = await create({ url: URL_OK, events: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.errors).toEqual([{ path: ['events'], message: 'At least one event type is required' }]);
    const unknown = await create({ url: URL_OK, events: ['checkout.succeeded', 'checkout.exploded'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'validation_error', message: 'Validation failed' });
    expect(unknown.body.error.errors).toEqual([{ path: ['events', 1], message: 'Unknown event type "checkout.exploded"' }]);
    const missing = await create({ url: URL_OK });
    expect(missing.body.error.errors).toEqual([{ path: ['events'], message: 'Events must be a list of event types' }]);
  });
});

describe('Idempotency-Key on webhook POSTs', () => {
  it('creates one endpoint for a repeated key; the replay does not show the secret again', async () => {
    const own = await stack.business();
    const headers = { 'Idempotency-Key': `wh-${Math.random()}` };
    const body = { url: URL_OK, events: ['*'] };
    const first = await stack.http.post('/api/webhooks', body, { key: own.testKey, headers });
    const replay = await stack.http.post('/api/webhooks', body, { key: own.testKey, headers });
    expect(first.status).toBe(201);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual({ endpoint: first.body.data.endpoint, secret: null });
    const list = await stack.http.get('/api/webhooks', { key: own.testKey });
    expect(list.body.data.meta.total).toBe(1);
    const stored = await stack.orm.em.getConnection().execute('select 1 from idempotency_keys where response_body like ?', [
      `%${first.body.data.secret}%`,
    ]);
    expect(stored).toHaveLength(0);
  });
});

describe('GET /api/webhooks', () => {
  it('lists the caller\'s endpoints newest first, paginated, without secrets', async () => {
    const own = await stack.business();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ url: `${URL_OK}/${i}`, events: ['*'] }, own.testKey)).body.data.endpoint.id);
    const page1 = await stack.http.get('/api/webhooks?limit=2', { key: own.testKey });
    expect(page1.status).toBe(200);
    expect(page1.body.data.items.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data.meta).toEqual({ total: 3, page: 1, limit: 2, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
    const page2 = await stack.http.get('/api/webhooks?limit=2&page=2', { key: own.testKey });
    expect(page2.body.data.items.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(page1.text + page2.text).not.toMatch(/whsec_|secret/);
  });
});

describe('PUT and PATCH /api/webhooks/:id', () => {
  it.each(['put', 'patch'] as const)('%s updates url, events, isActive and description, keeping the secret', async (method) => {
    const { body } = await create({ url: URL_OK, events: ['refund.created'] });
    const id = body.data.endpoint.id;
    const [before] = await stack.orm.em.getConnection().execute('select secret_sealed from webhook_endpoints where id = ?', [id]);
    const res = await stack.http[method](
      `/api/webhooks/${id}`,
      { url: 'https://merchant.example/v2', events: ['*'], isActive: false, description: 'All events' },
      { key: biz.testKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      url: 'https://merchant.example/v2',
      events: ['*'],
      isActive: false,
      enabled: false,
      description: 'All events',
    });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.data.createdAt));
    const [after] = await stack.orm.em.getConnection().execute('select secret_sealed from webhook_endpoints where id = ?', [id]);
    expect(after.secret_sealed).toBe(before.secret_sealed);
    const again = await stack.http[method](`/api/webhooks/${id}`, { enabled: true }, { key: biz.testKey });
    expect(again.body.data.isActive).toBe(true);
  });

  it('refuses an HTTP url with "URL must be HTTPS"', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const res = await stack.http.put(`/api/webhooks/${body.data.endpoint.id}`, { url: 'http://merchant.example' }, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'URL must be HTTPS', errors: [{ path: ['url'] }] });
  });

  it('refuses isActive and enabled that disagree', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const res = await stack.http.patch(`/api/webhooks/${body.data.endpoint.id}`, { isActive: true, enabled: false }, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.errors).toEqual([{ path: ['isActive'], message: 'isActive and enabled must agree' }]);
  });

  it('answers 404 "Webhook endpoint not found" for an unknown endpoint', async () => {
    for (const id of ['wh_00000000000000000000000000000000', 'nope']) {
      const res = await stack.http.put(`/api/webhooks/${id}`, { description: 'x' }, { key: biz.testKey });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Webhook endpoint not found' });
    }
  });
});

describe('DELETE /api/webhooks/:id', () => {
  it('answers {id, deleted: true}; the endpoint is then not found', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const id = body.data.endpoint.id;
    const res = await stack.http.delete(`/api/webhooks/${id}`, { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id, deleted: true } });
    expect((await stack.http.get(`/api/webhooks/${id}`, { key: biz.testKey })).status).toBe(404);
    expect((await stack.http.delete(`/api/webhooks/${id}`, { key: biz.testKey })).body.error.message).toBe('Webhook endpoint not found');
  });
});

describe('POST /api/webhooks/:id/rotate-secret', () => {
  it('returns a new secret and keeps the previous one signing for 24 hours', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const res = await stack.http.post(`/api/webhooks/${body.data.endpoint.id}/rotate-secret`, undefined, { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data.secret).toMatch(/^whsec_/);
    expect(res.body.data.secret).not.toBe(body.data.secret);
    const [row] = await stack.orm.em
      .getConnection()
      .execute('select extract(epoch from previous_secret_expires_at - now())::int as seconds from webhook_endpoints where id = ?', [
        body.data.endpoint.id,
      ]);
    expect(row.seconds).toBeGreaterThan(24 * 3600 - 60);
    expect(row.seconds).toBeLessThanOrEqual(24 * 3600);
  });
});

describe('isolation', () => {
  it('keeps endpoints apart between businesses and between test and live mode', async () => {
    const { body } = await create({ url: URL_OK, events: ['*'] });
    const id = body.data.endpoint.id;
    const other = await stack.business();
    expect((await stack.http.get(`/api/webhooks/${id}`, { key: other.testKey })).status).toBe(404);
    expect((await stack.http.get(`/api/webhooks/${id}`, { key: biz.liveKey })).status).toBe(404);
    expect((await stack.http.delete(`/api/webhooks/${id}`, { key: biz.liveKey })).status).toBe(404);
    const live = await stack.http.get('/api/webhooks', { key: biz.liveKey });
    expect(live.body.data.items.map((e: any) => e.id)).not.toContain(id);
  });
});

describe('private receivers (production policy)', () => {
  const strict = useStack({ ALLOW_PRIVATE_WEBHOOK_URLS: 'false' }, { worker: false });

  it.each([
    'https://127.0.0.1/hook',
    'https://localhost:8443/hook',
    'https://[::1]/hook',
    'https://10.0.0.8/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::1]/hook',
    'https://[::ffff:192.168.0.1]/hook',
  ])('refuses %s with a clear validation error', async (url) => {
    const res = await strict.http.post('/api/webhooks', { url, events: ['*'] }, { key: biz.testKey });
    expect(res.status).toBe(400);
    const message = 'URL must not resolve to a loopback, private, link-local or unique-local address';
    expect(res.body.error).toMatchObject({ type: 'validation_error', message, errors: [{ path: ['url'], message }] });
  });

  it('refuses such a URL on update too', async () => {
    const { body } = await strict.http.post('/api/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] }, { key: biz.testKey });
    expect(body.data.endpoint.url).toBe('https://93.184.216.34/hook');
    const res = await strict.http.patch(`/api/webhooks/${body.data.endpoint.id}`, { url: 'https://127.0.0.1/' }, { key: biz.testKey });
    expect(res.status).toBe(400);
  });
});
