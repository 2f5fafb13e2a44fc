/**
 * A merchant managing its webhook endpoints while money moves: create, read, update by PUT and by
 * PATCH, rotate the secret, list, delete, and then find the deleted endpoint gone everywhere. Some
 * endpoints point at a receiver path that answers 2xx with a NUL byte in its body.
 * At most 8 live endpoints per business, under the cap of 16.
 */
import { notFound, randomInt, sleep, validation, type SoakContext } from './context.js';
import type { SoakBusiness } from './stack.js';

const EVENTS = ['checkout.succeeded', 'checkout.failed', 'refund.created', 'refund.completed', 'refund.failed', 'withdrawal.paid', 'withdrawal.failed'];
const GONE = notFound('Webhook endpoint not found');
const LIVE_MAX = 8;

function someEvents(): string[] {
  if (Math.random() < 0.2) return ['*'];
  return EVENTS.filter(() => Math.random() < 0.4).concat(EVENTS[randomInt(EVENTS.length)]);
}

export async function webhooksLoop(ctx: SoakContext, biz: SoakBusiness): Promise<void> {
  const live: string[] = [];
  const receiver = ctx.stack.receiver;
  for (let n = 0; !ctx.stopped(); n++) {
    const url = n % 4 === 3 ? receiver.url([{ status: 200, body: 'ok\u0000thanks' }]) : receiver.url();
    const created = await ctx.api().post('/api/webhooks', { url, events: someEvents() }, {
      key: biz.key,
      // The cap (16 per business and mode) is not reached here; were it, this is its answer.
      accept: [201, validation(/16/)],
    });
    if (created.status === 201) {
      const id = created.body.data.endpoint.id as string;
      if (!/^whsec_/.test(created.body.data.secret)) ctx.stats.problem(`endpoint ${id} created without a secret`, { answer: created.text });
      live.push(id);
      await ctx.api().get(`/api/webhooks/${id}`, { key: biz.key, accept: [200] });
    }
    if (live.length) {
      const id = live[randomInt(live.length)];
      // PUT, PATCH and a rotation of one endpoint at once, over both APIs.
      const [put, , rotated] = await Promise.all([
        ctx.api().put(`/api/webhooks/${id}`, { description: `soak ${n}`, events: someEvents() }, { key: biz.key, accept: [200] }),
        ctx.api().patch(`/api/webhooks/${id}`, { isActive: n % 3 !== 0 }, { key: biz.key, accept: [200] }),
        ctx.api().post(`/api/webhooks/${id}/rotate-secret`, undefined, { key: biz.key, accept: [200] }),
      ]);
      if (put.status === 200 && put.body.data.id !== id) ctx.stats.problem(`PUT /api/webhooks/${id} answered another endpoint`);
      if (rotated.status === 200 && !/^whsec_/.test(rotated.body.data.secret)) ctx.stats.problem(`rotation of ${id} gave no secret`);
      await ctx.api().put(`/api/webhooks/${id}`, { url: receiver.url(), isActive: true }, { key: biz.key, accept: [200] });
      await ctx.api().patch(`/api/webhooks/${id}`, { url: 'http://insecure.example/hook' }, { key: biz.key, accept: [validation('Validation failed'), validation('URL must be HTTPS')] });
    }
    if (live.length > LIVE_MAX || (live.length && n % 5 === 4)) await deleteRace(ctx, biz, live.shift()!);
    await ctx.api().get(`/api/webhooks?limit=5&page=${1 + randomInt(2)}`, { key: biz.key, accept: [200] });
    await sleep(150);
  }
  // Left as found: the final sweep creates its own.
  for (const id of live) await ctx.api().delete(`/api/webhooks/${id}`, { key: biz.key, accept: [200] });
}

/** A delete racing an update of the same endpoint: the update wins (200) or finds it gone (404). */
async function deleteRace(ctx: SoakContext, biz: SoakBusiness, id: string): Promise<void> {
  const [deleted] = await Promise.all([
    ctx.api().delete(`/api/webhooks/${id}`, { key: biz.key, accept: [200] }),
    ctx.api().patch(`/api/webhooks/${id}`, { description: 'racing the delete' }, { key: biz.key, accept: [200, GONE] }),
  ]);
  if (deleted.status !== 200) return;
  for (const api of ctx.stack.apis) {
    await api.get(`/api/webhooks/${id}`, { key: biz.key, accept: [GONE] });
    await api.put(`/api/webhooks/${id}`, { description: 'after delete' }, { key: biz.key, accept: [GONE] });
    await api.post(`/api/webhooks/${id}/rotate-secret`, undefined, { key: biz.key, accept: [GONE] });
  }
  await ctx.api().delete(`/api/webhooks/${id}`, { key: biz.key, accept: [GONE] });
}
