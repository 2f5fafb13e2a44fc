/**
 * A merchant and its customers: sessions created (some twice at once under one Idempotency-Key), paid
 * with every test card (some twice at once), cancelled from the hosted page, and refunded by several
 * requests at once, of which at most one may create the refund.
 */
import { randomUUID } from 'node:crypto';
import { CARDS, payBody, sessionBody } from '../support/payments.js';
import type { HttpResponse } from '../support/http.js';
import { error, pollUntil, randomInt, validation, type SoakContext } from './context.js';
import type { SoakBusiness } from './stack.js';

const CARD_LIST = Object.values(CARDS);
const FINAL_SESSION = new Set(['completed', 'failed', 'cancelled', 'refunded']);
const NOT_PAYABLE = validation(/^Cannot pay a checkout session in \w+ status$/);
const REFUND_REFUSALS = [validation('Refund already exists for this session'), validation('Insufficient balance for refund')];

export async function paymentsLoop(ctx: SoakContext, biz: SoakBusiness): Promise<void> {
  for (let n = 0; !ctx.stopped(); n++) {
    const session = await createSession(ctx, biz, n);
    if (!session) continue;
    if (n % 9 === 4) {
      await cancelFromPage(ctx, session);
      continue;
    }
    const card = CARD_LIST[(n + biz.index) % CARD_LIST.length];
    const status = await payAndSettle(ctx, biz, session, card, n % 5 === 2);
    if (status === 'completed') await refundRace(ctx, biz, session, card);
    else if (status === 'failed') {
      await ctx.api().post('/api/refunds', { checkoutSessionId: session }, { key: biz.key, accept: [validation('Can only refund completed sessions')] });
    }
  }
}

async function createSession(ctx: SoakContext, biz: SoakBusiness, n: number): Promise<string | null> {
  const body = sessionBody({ description: `Soak order ${biz.index}-${n}`, metadata: { soak: true, n } });
  if (n % 4 !== 1) {
    const res = await ctx.api().post('/api/checkout/sessions', body, { key: biz.key, accept: [201] });
    return res.status === 201 ? remember(biz, res.body.data.id) : null;
  }
  // A client's retry racing its first try: one session, the other answer a replay or "in progress".
  const headers = { 'Idempotency-Key': randomUUID() };
  const accept = [201, error(409, 'idempotency_error', 'A request with this Idempotency-Key is in progress')];
  const answers = await Promise.all([0, 1].map(() => ctx.api().post('/api/checkout/sessions', body, { key: biz.key, headers, accept })));
  const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.id as string));
  if (ids.size > 1) ctx.stats.problem(`one Idempotency-Key created ${ids.size} sessions: ${[...ids].join(', ')}`);
  const [id] = ids;
  return id ? remember(biz, id) : null;
}

function remember(biz: SoakBusiness, id: string): string {
  biz.sessions.push(id);
  if (biz.sessions.length > 200) biz.sessions.shift();
  return id;
}

async function cancelFromPage(ctx: SoakContext, session: string): Promise<void> {
  await ctx.api().get(`/checkout/${session}`, { accept: [200] });
  await ctx.api().request('POST', `/checkout/${session}/cancel`, { accept: [303] });
  await ctx.api().post(`/api/checkout/${session}/pay`, payBody(), { accept: [NOT_PAYABLE] });
}

/** Pays (twice at once when `twice`), then reads the session until its outcome is final. */
async function payAndSettle(ctx: SoakContext, biz: SoakBusiness, session: string, card: string, twice: boolean): Promise<string | null> {
  const accept = [200, NOT_PAYABLE];
  const answers = await Promise.all((twice ? [0, 1] : [0]).map(() => ctx.api().post(`/api/checkout/${session}/pay`, payBody(card), { accept })));
  for (const a of answers.filter((a) => a.status === 200)) {
    if (!['completed', 'failed', 'processing'].includes(a.body.data.status)) {
      ctx.stats.problem(`pay answered status ${a.body.data.status}`, { path: `/api/checkout/${session}/pay`, answer: a.text.slice(0, 300) });
    }
  }
  if (!answers.some((a) => a.status === 200)) return null;
  // An unknown outcome (a processor timeout) stays `processing` until the workflow resolves it; so may any
  // payment on a loaded machine. Not final in 30 s: this loop moves on, and the final settle (money-checks.ts)
  // requires every session to have reached its outcome.
  const read = () => ctx.api().get(`/api/checkout/sessions/${session}`, { key: biz.key });
  const { value } = await pollUntil(read, (a) => a.status !== 200 || FINAL_SESSION.has(a.body.data.status), 30_000, 1_000);
  return value.status === 200 ? value.body.data.status : null;
}

/** Several refunds of one session at once, over both APIs: at most one is created. */
async function refundRace(ctx: SoakContext, biz: SoakBusiness, session: string, card: string): Promise<void> {
  await ctx.api().post(`/api/checkout/${session}/pay`, payBody(), { accept: [NOT_PAYABLE] });
  const racers = 2 + randomInt(3);
  const answers = await Promise.all(
    Array.from({ length: racers }, (_, i) =>
      ctx.api().post('/api/refunds', { checkoutSessionId: session, reason: `soak racer ${i}` }, { key: biz.key, accept: [201, ...REFUND_REFUSALS] }),
    ),
  );
  const created = answers.filter((a) => a.status === 201);
  if (created.length > 1) ctx.stats.problem(`${created.length} refunds created for session ${session}`, { answer: created.map((a) => a.body.data.id).join(', ') });
  if (!created.length) return;
  const refund = created[0].body.data.id as string;
  biz.refunds.push(refund);
  // The refund-declined card's refund fails; its money (reserve shares included) goes back, so it may be tried again.
  if (card === CARDS.refundDeclined) ctx.background(refundAgainAfterFailure(ctx, biz, session, refund));
}

async function refundAgainAfterFailure(ctx: SoakContext, biz: SoakBusiness, session: string, refund: string): Promise<void> {
  const read = (): Promise<HttpResponse> => ctx.api().get(`/api/refunds/${refund}`, { key: biz.key });
  const { value, done } = await pollUntil(read, (a) => a.status !== 200 || ['completed', 'failed'].includes(a.body.data.status), 90_000, 1_000);
  if (!done) return ctx.stats.problem(`refund ${refund} still ${value.body?.data?.status} after 90 s`);
  if (value.status !== 200 || value.body.data.status !== 'failed') {
    return ctx.stats.problem(`refund ${refund} of a refund-declined card ended ${value.body?.data?.status ?? value.status}, not failed`);
  }
  const again = await ctx.api().post('/api/refunds', { checkoutSessionId: session, reason: 'soak second try' }, { key: biz.key, accept: [201, ...REFUND_REFUSALS] });
  if (again.status === 201) biz.refunds.push(again.body.data.id);
}
