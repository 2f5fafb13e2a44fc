/**
 * After the traffic: every write and read route, against EACH API process, for each business, with
 * the exact answer it must give. The soak's reason for existing: an API process once kept answering 500
 * to webhook PUT, PATCH and DELETE after a burst of withdrawals and cancels, while the other was fine.
 */
import { payBody, sessionBody } from '../support/payments.js';
import type { HttpResponse } from '../support/http.js';
import type { SoakClient } from './stats.js';
import { pollUntil } from './context.js';
import type { SoakBusiness, SoakStack } from './stack.js';

class Checker {
  readonly problems: string[] = [];
  constructor(private readonly api: SoakClient) {}
  /** Records a problem unless `answer` has `status` (and passes `also`); returns the answer's data. */
  expect(what: string, answer: HttpResponse, status: number, also: (a: HttpResponse) => boolean = () => true): any {
    if (answer.status === status && also(answer)) return answer.body?.data ?? true;
    const rid = answer.headers['x-request-id'] ?? '-';
    this.problems.push(`${this.api.name}: ${what} answered ${answer.status} (expected ${status}; request ${rid}): ${answer.text.slice(0, 300)}`);
    return null;
  }
}

async function paid(api: SoakClient, c: Checker, biz: SoakBusiness): Promise<string | null> {
  const session = c.expect('POST /api/checkout/sessions', await api.post('/api/checkout/sessions', sessionBody(), { key: biz.key, accept: [201] }), 201);
  if (!session) return null;
  const pay = await api.post(`/api/checkout/${session.id}/pay`, payBody(), { accept: [200] });
  if (!c.expect('POST /api/checkout/:id/pay', pay, 200)) return null;
  const read = () => api.get(`/api/checkout/sessions/${session.id}`, { key: biz.key, accept: [200] });
  // `processing` (or still `pending`) when the outcome took longer than the pay call's wait, as on a loaded machine.
  const { value } = await pollUntil(read, (a) => a.status !== 200 || !['pending', 'processing'].includes(a.body.data.status), 120_000);
  return c.expect('GET /api/checkout/sessions/:id after pay', value, 200, (a) => a.body.data.status === 'completed') ? session.id : null;
}

async function sweepOne(api: SoakClient, biz: SoakBusiness, receiverUrl: string): Promise<string[]> {
  const c = new Checker(api);
  const key = biz.key;
  const ok = [200];

  // Sessions, the hosted page and pay: two paid sessions, so the refund below has the money.
  const first = await paid(api, c, biz);
  await paid(api, c, biz);
  if (first) {
    c.expect('GET /api/checkout/sessions/:id', await api.get(`/api/checkout/sessions/${first}`, { key, accept: ok }), 200);
    c.expect('GET /checkout/:id', await api.get(`/checkout/${first}`, { accept: ok }), 200);
  }
  c.expect('GET /api/checkout/sessions', await api.get('/api/checkout/sessions?limit=3', { key, accept: ok }), 200);
  const toCancel = c.expect('POST /api/checkout/sessions', await api.post('/api/checkout/sessions', sessionBody(), { key, accept: [201] }), 201);
  if (toCancel) c.expect('POST /checkout/:id/cancel', await api.request('POST', `/checkout/${toCancel.id}/cancel`, { accept: [303] }), 303);

  // Withdrawals: create to a registered destination, read, cancel, list.
  const method = biz.methods[0];
  const wd = c.expect('POST /api/withdrawals', await api.post('/api/withdrawals', { amount: 1, ...method }, { key, accept: [201] }), 201);
  if (wd) {
    c.expect('GET /api/withdrawals/:id', await api.get(`/api/withdrawals/${wd.id}`, { key, accept: ok }), 200);
    c.expect('POST /api/withdrawals/:id/cancel', await api.post(`/api/withdrawals/${wd.id}/cancel`, undefined, { key, accept: ok }), 200, (a) => a.body.data.status === 'cancelled');
  }
  c.expect('GET /api/withdrawals', await api.get('/api/withdrawals?limit=3', { key, accept: ok }), 200);

  // Refunds: create, read, list.
  if (first) {
    const refund = c.expect('POST /api/refunds', await api.post('/api/refunds', { checkoutSessionId: first }, { key, accept: [201] }), 201);
    if (refund) c.expect('GET /api/refunds/:id', await api.get(`/api/refunds/${refund.id}`, { key, accept: ok }), 200);
  }
  c.expect('GET /api/refunds', await api.get('/api/refunds?limit=3', { key, accept: ok }), 200);
  c.expect('GET /api/disputes', await api.get('/api/disputes?limit=3', { key, accept: ok }), 200);

  // Webhook endpoints: every write route, then the endpoint is gone.
  const created = c.expect('POST /api/webhooks', await api.post('/api/webhooks', { url: receiverUrl, events: ['*'] }, { key, accept: [201] }), 201);
  if (created) {
    const id = created.endpoint.id;
    c.expect('GET /api/webhooks/:id', await api.get(`/api/webhooks/${id}`, { key, accept: ok }), 200);
    c.expect('PUT /api/webhooks/:id', await api.put(`/api/webhooks/${id}`, { description: 'sweep', events: ['refund.completed'] }, { key, accept: ok }), 200, (a) => a.body.data.description === 'sweep');
    c.expect('PATCH /api/webhooks/:id', await api.patch(`/api/webhooks/${id}`, { isActive: false }, { key, accept: ok }), 200, (a) => a.body.data.isActive === false);
    c.expect('POST /api/webhooks/:id/rotate-secret', await api.post(`/api/webhooks/${id}/rotate-secret`, undefined, { key, accept: ok }), 200);
    c.expect('GET /api/webhooks', await api.get('/api/webhooks', { key, accept: ok }), 200);
    c.expect('DELETE /api/webhooks/:id', await api.delete(`/api/webhooks/${id}`, { key, accept: ok }), 200);
    c.expect('GET /api/webhooks/:id after delete', await api.get(`/api/webhooks/${id}`, { key, accept: [404] }), 404);
  }
  const events = c.expect('GET /api/webhooks/events', await api.get('/api/webhooks/events?limit=1', { key, accept: ok }), 200);
  const event = events?.items?.[0]?.id;
  if (event) c.expect('POST /api/webhooks/retry/:id', await api.post(`/api/webhooks/retry/${event}`, undefined, { key, accept: ok }), 200);

  // Balance and reserves.
  c.expect('GET /api/balance', await api.get('/api/balance', { key, accept: ok }), 200);
  const reserves = c.expect('GET /api/reserves', await api.get('/api/reserves?limit=1', { key, accept: ok }), 200);
  if (reserves?.items?.[0]) c.expect('GET /api/reserves/:id', await api.get(`/api/reserves/${reserves.items[0].id}`, { key, accept: ok }), 200);
  c.expect('GET /api/reserves/summary', await api.get('/api/reserves/summary', { key, accept: ok }), 200);
  c.expect('GET /api/reserves/config', await api.get('/api/reserves/config', { key, accept: ok }), 200);
  return c.problems;
}

/** The problems found, one line each; empty when every route answers as it must on every process. */
export async function sweepEveryApi(stack: SoakStack): Promise<string[]> {
  const problems: string[] = [];
  for (const api of stack.apis) {
    const found = await Promise.all(stack.businesses.map((biz) => sweepOne(api, biz, stack.receiver.url())));
    problems.push(...found.flat());
  }
  return problems;
}
