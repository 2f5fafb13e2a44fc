/**
 * The dispute operations' contract: the list and its filters and cursor, the single read with its ETag,
 * the evidence and close rules, and the API's usual rules (scopes, businesses and modes, Idempotency-Key,
 * /api/v1). Disputes are opened as an operator enters an acquirer's notice (`dispute open`).
 */
import { createApiKey } from '../../src/modules/businesses/index.js';
import { paidSession, sql } from '../support/payments.js';
import { disputeWorkflow, openDispute, TOTAL } from '../support/disputes.js';
import type { TestBusiness } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({ DISPUTE_REVIEW_PERIOD: '1s' });
const biz = useBusiness(stack);

async function disputed(business: TestBusiness = biz, opts: Parameters<typeof openDispute>[2] = {}, key = business.testKey) {
  const session = await paidSession(stack, business, key);
  const { dispute } = await openDispute(stack, session.id, opts);
  return { sessionId: session.id as string, id: dispute.id };
}
const get = (path: string, key = biz.testKey, headers?: Record<string, string>) => stack.http.get(path, { key, headers });
const post = (path: string, body?: unknown, key = biz.testKey, headers?: Record<string, string>) => stack.http.post(path, body, { key, headers });
const errorOf = (res: { status: number; body: any }) => [res.status, res.body.error?.type, res.body.error?.message];

describe('GET /api/disputes', () => {
  it('lists newest first, filtered by status and session, paged by an opaque cursor', async () => {
    const business = await stack.business();
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push(await disputed(business, { reason: 'duplicate', inquiry: i === 1 }));
    const page1 = await get('/api/disputes?limit=2', business.testKey);
    expect(page1.status).toBe(200);
    expect(page1.body.data.items.map((d: any) => d.id)).toEqual([opened[2].id, opened[1].id]);
    expect(page1.body.data.meta).toEqual({ hasMore: true, nextCursor: expect.any(String) });
    const page2 = await get(`/api/v1/disputes?limit=2&cursor=${page1.body.data.meta.nextCursor}`, business.testKey);
    expect(page2.body.data).toEqual({ items: [expect.objectContaining({ id: opened[0].id })], meta: { hasMore: false, nextCursor: null } });

    const inquiries = await get('/api/disputes?status=warning_needs_response', business.testKey);
    expect(inquiries.body.data.items.map((d: any) => d.id)).toEqual([opened[1].id]);
    const bySession = await get(`/api/disputes?checkoutSessionId=${opened[0].sessionId}`, business.testKey);
    expect(bySession.body.data.items.map((d: any) => d.id)).toEqual([opened[0].id]);
    expect((await get('/api/disputes?checkoutSessionId=not-a-uuid', business.testKey)).body.data.items).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['status=open', 'status'],
    ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['checkoutSessionId=not-a-uuid&cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('refuses %s: 400 naming %s', async (query, field) => {
    const res = await get(`/api/disputes?${query}`);
    expect(errorOf(res)).toEqual([400, 'validation_error', 'Validation failed']);
    expect(res.body.error.errors.map((e: any) => e.path)).toEqual([[field]]);
  });
});

describe('GET /api/disputes/:id', () => {
  it('reads a dispute with an ETag, 304 while unchanged, and a new ETag once evidence is saved', async () => {
    const { id, sessionId } = await disputed();
    const read = await get(`/api/disputes/${id}`);
    expect(read.body.data).toMatchObject({ id, checkoutSessionId: sessionId, amountInCents: TOTAL, status: 'needs_response', reason: 'general' });
    const etag = read.headers.etag as string;
    expect((await get(`/api/disputes/${id}`, biz.testKey, { 'If-None-Match': etag })).status).toBe(304);
    await post(`/api/disputes/${id}/evidence`, { customerName: 'Ada Lovelace' });
    const changed = await get(`/api/disputes/${id}`, biz.testKey, { 'If-None-Match': etag });
    expect([changed.status, changed.body.data.evidence.customerName]).toEqual([200, 'Ada Lovelace']);
  });

  it("answers 404 not_found for another business's, the other mode's and unknown disputes", async () => {
    const { id } = await disputed();
    const other = await stack.business();
    for (const res of [
      await get(`/api/disputes/${id}`, other.testKey),
      await get(`/api/disputes/${id}`, biz.liveKey),
      await get('/api/disputes/dsp_00000000000000000000000000000000'),
      await post(`/api/disputes/${id}/evidence`, { submit: true }, other.testKey),
      await post(`/api/disputes/${id}/close`, undefined, biz.liveKey),
    ]) {
      expect(errorOf(res)).toEqual([404, 'not_found', 'Dispute not found']);
    }
    expect((await get(`/api/disputes?checkoutSessionId=${(await get(`/api/disputes/${id}`)).body.data.checkoutSessionId}`, other.testKey)).body.data.items).toEqual([]);
  });
});

describe('POST /api/disputes/:id/evidence', () => {
  it('keeps saved fields, clears one sent as null, and refuses a field over 20,000 characters', async () => {
    const { id } = await disputed();
    await post(`/api/disputes/${id}/evidence`, { customerName: 'Ada', shippingCarrier: 'UPS' });
    const saved = await post(`/api/disputes/${id}/evidence`, { shippingCarrier: null, refundPolicy: 'x'.repeat(20_000) });
    expect(saved.body.data).toMatchObject({ status: 'needs_response', evidence: { customerName: 'Ada', shippingCarrier: null } });
    expect(saved.body.data.evidence.refundPolicy).toHaveLength(20_000);
    const tooLong = await post(`/api/disputes/${id}/evidence`, { uncategorizedText: 'x'.repeat(20_001) });
    expect(errorOf(tooLong)).toEqual([400, 'validation_error', 'Validation failed']);
    expect(tooLong.body.error.errors).toEqual([{ path: ['uncategorizedText'], message: 'uncategorizedText must be at most 20000 characters' }]);
    expect((await post(`/api/disputes/${id}/evidence`, { submit: 'yes' })).status).toBe(400);
    // Stripe's form, the fields nested under `evidence`, works too; a top-level field wins over its twin.
    const nested = await post(`/api/disputes/${id}/evidence`, { evidence: { productDescription: 'Mug', customerName: 'Bo' }, customerName: 'Cy' });
    expect(nested.body.data.evidence).toMatchObject({ productDescription: 'Mug', customerName: 'Cy', refundPolicy: 'x'.repeat(20_000) });
  });

  it('refuses evidence once the dispute is submitted or closed, and from evidenceDueBy on', async () => {
    const submitted = await disputed();
    expect((await post(`/api/disputes/${submitted.id}/evidence`, { submit: true })).body.data.status).toBe('under_review');
    expect(errorOf(await post(`/api/disputes/${submitted.id}/evidence`, { submit: true }))).toEqual([400, 'validation_error', 'Cannot submit evidence for a dispute in under_review status']);

    const closed = await disputed();
    await post(`/api/disputes/${closed.id}/close`);
    expect(errorOf(await post(`/api/disputes/${closed.id}/evidence`, { customerName: 'Ada' }))).toEqual([400, 'validation_error', 'Cannot submit evidence for a dispute in lost status']);

    // The deadline as the database holds it (the workflow's timer is still days away).
    const due = await disputed();
    const [row] = await sql(stack, `update disputes set evidence_due_by = now() - interval '1 second' where id = ? returning evidence_due_by`, [due.id]);
    const late = await post(`/api/disputes/${due.id}/evidence`, { customerName: 'Ada' });
    expect(errorOf(late)).toEqual([400, 'validation_error', `Evidence was due by ${new Date(row.evidence_due_by).toISOString()}`]);
  });

  it('replays an Idempotency-Key with the first answer and refuses it with another body', async () => {
    const { id } = await disputed();
    const headers = { 'Idempotency-Key': `evidence-${id}` };
    const first = await post(`/api/disputes/${id}/evidence`, { uncategorizedText: 'Delivered', submit: true }, biz.testKey, headers);
    const again = await post(`/api/disputes/${id}/evidence`, { uncategorizedText: 'Delivered', submit: true }, biz.testKey, headers);
    expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([200, 'true', first.text]);
    expect((await post(`/api/disputes/${id}/evidence`, { uncategorizedText: 'Other' }, biz.testKey, headers)).status).toBe(422);
  });
});

describe('POST /api/disputes/:id/close', () => {
  it('accepts a chargeback as lost and an inquiry as warning_closed; closing again is 400', async () => {
    const chargeback = await disputed();
    const lost = await post(`/api/v1/disputes/${chargeback.id}/close`);
    expect(lost.body.data).toMatchObject({ status: 'lost', closedAt: expect.any(String) });
    expect(errorOf(await post(`/api/disputes/${chargeback.id}/close`))).toEqual([400, 'validation_error', 'Cannot close a dispute in lost status']);

    const inquiry = await disputed(biz, { inquiry: true });
    expect((await post(`/api/disputes/${inquiry.id}/close`)).body.data.status).toBe('warning_closed');
    // The dispute's workflow hears of it (the outbox's signal) and ends.
    expect(await (await disputeWorkflow(stack, inquiry.id)).result()).toBe('warning_closed');
  });

  it('refuses both POSTs to a read-only key: 403, nothing changed', async () => {
    const { id } = await disputed();
    const readOnly = (await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'read_only')).secret;
    for (const res of [await post(`/api/disputes/${id}/evidence`, { submit: true }, readOnly), await post(`/api/disputes/${id}/close`, undefined, readOnly)]) {
      expect(errorOf(res)).toEqual([403, 'permission_error', 'This API key is read-only']);
    }
    expect((await get(`/api/disputes/${id}`, readOnly)).body.data.status).toBe('needs_response');
  });
});
