/**
 * What the fuzz run's business holds before Schemathesis starts, so that the operations that act on
 * something (a session to pay or refund, a withdrawal to cancel, a dispute to answer, a delivery to send
 * again) are fuzzed against real records, not only answered 404: random ids of the documented shape name
 * nothing. The ids go into the run's configuration as dictionaries (`fuzzConfig`), which the fuzzer
 * draws from for half of each operation's valid cases; the other half keeps its own ids.
 *
 * Paid sessions are recorded by their lifecycle steps, as the payment workflow's activities record them,
 * which is quicker than paying each through the API; everything else goes through the API, as a
 * merchant makes it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../src/config.js';
import { apiDocument } from '../../src/api/openapi/document.js';
import type { Business } from '../../src/modules/businesses/index.js';
import { beginPayment, completePayment, createSessionInput, createSession, paymentToComplete } from '../../src/modules/checkout/index.js';
import { recordDisputeNotice } from '../../src/modules/disputes/index.js';
import { simulatedChargeId } from '../../src/modules/processor/index.js';
import type { HttpClient } from '../../test/support/http.js';

/** The registered payout destination: the document's own example, so the examples phase names it too. */
export const FUZZ_WALLET = 'payouts@example.com';
/** A card the simulator charges, and a year it has not expired by. */
const GOOD_CARD = '4242424242424242';
const GOOD_YEAR = 2030;

/** Enough of each that a run's valid cases do not use them all up (each paid, refunded, cancelled or submitted one is spent). */
const COUNTS = { pending: 100, paid: 80, disputes: 30, refunds: 4, withdrawals: 30, endpoints: 8, editableEndpoints: 4 };
/** Payments only for their money: a refund gives back the whole total, fees included, so it needs more than its own sale. */
const FUNDING = 40;

export interface Seeded {
  pendingSessions: string[];
  paidSessions: string[];
  disputes: string[];
  refunds: string[];
  withdrawals: string[];
  endpoints: string[];
  editableEndpoints: string[];
  eventsAndDeliveries: string[];
  balanceTransactions: string[];
  reserves: string[];
}

interface SeedContext {
  orm: MikroORM;
  config: Config;
  business: Business;
  keyId: string;
  testKey: string;
  http: HttpClient;
}

export async function seed(ctx: SeedContext): Promise<Seeded> {
  const paid = [];
  for (let i = 0; i < COUNTS.paid + COUNTS.disputes + FUNDING; i++) paid.push(await paidSession(ctx));
  paid.splice(0, FUNDING);
  const disputed = paid.splice(0, COUNTS.disputes);
  for (const [i, sessionId] of disputed.entries()) {
    // A chargeback and an inquiry in turn: their evidence and close rules differ.
    const notice = { checkoutSessionId: sessionId, reason: 'general' as const, amountInCents: null, inquiry: i % 2 === 1 };
    await ctx.orm.em.fork().transactional((tx) => recordDisputeNotice(tx, notice, ctx.config.disputes));
  }
  const disputes = await ctx.orm.em.fork().getConnection().execute<{ id: string }[]>('select id from disputes where business_id = ?', [ctx.business.id]);

  const refunds = [];
  for (const sessionId of paid.splice(0, COUNTS.refunds)) {
    refunds.push((await created(ctx, '/api/refunds', { checkoutSessionId: sessionId, reason: 'requested_by_customer' })).id);
  }
  const withdrawals = [];
  for (let i = 0; i < COUNTS.withdrawals; i++) {
    withdrawals.push((await created(ctx, '/api/withdrawals', { amount: 1, destinationType: 'wallet', destinationDetails: { walletEmail: FUZZ_WALLET } })).id);
  }
  const pendingSessions = [];
  for (let i = 0; i < COUNTS.pending; i++) pendingSessions.push((await created(ctx, '/api/checkout/sessions', order(i))).id);

  // Endpoints at a host that does not exist (the fuzz worker's receiver takes every delivery without a
  // connection), each with one test event and its delivery.
  const endpoints = [];
  const eventsAndDeliveries = [];
  for (let i = 0; i < COUNTS.endpoints; i++) {
    const { endpoint } = await created(ctx, '/api/webhooks', { url: `https://receiver.example/fuzz-${i}`, events: ['*'] });
    const ping = await ctx.http.post(`/api/webhooks/${endpoint.id}/test`, {}, { key: ctx.testKey });
    if (ping.status !== 202) throw new Error(`seeding a test event: ${ping.status} ${ping.text}`);
    endpoints.push(endpoint.id);
    eventsAndDeliveries.push(ping.body.data.eventId, ping.body.data.deliveryId);
  }
  // Endpoints for the edits to change (a PUT or PATCH may disable one): apart from the ones above, whose
  // pings and recoveries a disabled endpoint would refuse.
  const editableEndpoints = [];
  for (let i = 0; i < COUNTS.editableEndpoints; i++) {
    editableEndpoints.push((await created(ctx, '/api/webhooks', { url: `https://receiver.example/fuzz-edit-${i}`, events: ['*'] })).endpoint.id);
  }
  // Records the service makes itself, read back as a merchant would: the fuzzer's draws reach them only
  // through these dictionaries, as no phase but the stateful one takes ids from answers (schemathesis.toml).
  const balanceTransactions = await listed(ctx, '/api/balance/transactions?limit=20');
  const reserves = await listed(ctx, '/api/reserves?limit=20');
  return { pendingSessions, paidSessions: paid, disputes: disputes.map((d) => d.id), refunds, withdrawals, endpoints, editableEndpoints, eventsAndDeliveries, balanceTransactions, reserves };
}

async function listed(ctx: SeedContext, path: string): Promise<string[]> {
  const res = await ctx.http.get(path, { key: ctx.testKey });
  const ids = res.status === 200 ? (res.body.data.items as { id: string }[]).map((item) => item.id) : [];
  if (ids.length === 0) throw new Error(`seeding: ${path} answered ${res.status} with no records`);
  return ids;
}

const order = (i: number) => ({ description: `Fuzz order ${i}`, customer: { email: 'fuzz@example.com' }, items: [{ name: 'Mug', price: 900, quantity: 1 }] });

async function created(ctx: SeedContext, path: string, body: unknown) {
  const res = await ctx.http.post(path, body, { key: ctx.testKey });
  if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${res.text}`);
  return res.body.data;
}

/** A completed payment of $900, its money in the balance (refunds and withdrawals draw on it). */
async function paidSession(ctx: SeedContext): Promise<string> {
  const caller = { businessId: ctx.business.id, livemode: false, keyId: ctx.keyId, scope: 'full' as const, business: ctx.business };
  const { session } = await createSession(ctx.orm.em.fork(), caller, createSessionInput.parse(order(0)), { sessionTtlMs: ctx.config.sessionTtlMs });
  await beginPayment(ctx.orm.em.fork(), session.id, { customerName: 'Fuzz', cardBrand: 'visa', cardLast4: '4242' }, `fuzz-${session.id}`);
  const payment = (await paymentToComplete(ctx.orm.em.fork(), session.id))!;
  await ctx.orm.em.fork().transactional((tx) => completePayment(tx, payment, simulatedChargeId('ok', session.id)));
  return session.id;
}

/**
 * The seeded records a run spends (a session paid, a session refunded, an endpoint disabled): scripts/fuzz/hooks.py hands each
 * request that names one of them the next of its kind in turn (FUZZ_ROTATE), as the fuzzer's draws keep
 * naming the same few. Pay allows 10 calls a minute per session, and a refunded session refuses the
 * next refund: with one id drawn for most cases, nearly all of them were answered 429 or 400.
 */
export function rotations(seeded: Seeded) {
  const spec = { pay: seeded.pendingSessions, refund: seeded.paidSessions, endpoint: seeded.endpoints, delivery: seeded.eventsAndDeliveries, withdrawal: seeded.withdrawals };
  const rotation = (label: string, location: 'path' | 'body', name: string, values: string[]) => ({
    location,
    name,
    values,
    // The coverage phase sends the document's example as the valid value, hundreds of times: it names a
    // record of the kind, so it is handed one of this run's.
    examples: [documentedExample(label, location, name)],
  });
  return {
    'POST /checkout/{id}/pay': rotation('POST /checkout/{id}/pay', 'path', 'id', spec.pay),
    'POST /refunds': rotation('POST /refunds', 'body', 'checkoutSessionId', spec.refund),
    // A cancelled withdrawal refuses the next cancel: before, the fuzzer cancelled the ones it had just
    // made, from answers; now that it draws no ids from answers, each cancel gets the next seeded one.
    'POST /withdrawals/{id}/cancel': rotation('POST /withdrawals/{id}/cancel', 'path', 'id', spec.withdrawal),
    // An endpoint is not spent, but the fuzzer disables some (the document's own PUT and PATCH examples
    // do), and a disabled one refuses a ping, a recovery and a retry of its deliveries alike.
    'POST /webhooks/{id}/test': rotation('POST /webhooks/{id}/test', 'path', 'id', spec.endpoint),
    'POST /webhooks/{id}/recover': rotation('POST /webhooks/{id}/recover', 'path', 'id', spec.endpoint),
    'POST /webhooks/retry/{id}': rotation('POST /webhooks/retry/{id}', 'path', 'id', spec.delivery),
  };
}

interface DocumentedOperation {
  parameters?: { in: string; name: string; schema?: { example?: string } }[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value?: Record<string, string> }> }> };
}

/** The API document's example of a path parameter, or of a body field (in the operation's first example that has it). */
function documentedExample(label: string, location: 'path' | 'body', name: string): string {
  const [method, path] = label.split(' ');
  const paths = (apiDocument() as unknown as { paths: Record<string, Record<string, DocumentedOperation>> }).paths;
  const operation = paths[path][method.toLowerCase()];
  const example =
    location === 'path'
      ? operation.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema?.example
      : Object.values(operation.requestBody?.content['application/json']?.examples ?? {}).find((e) => e.value?.[name])?.value?.[name];
  if (!example) throw new Error(`the document has no example of ${label} ${location}.${name}`);
  return example;
}

/**
 * The run's own part of the Schemathesis configuration, appended to scripts/fuzz/schemathesis.toml:
 * each seeded kind as a dictionary, bound to the operations that need one with probability 0.5 (pay's
 * session with 1).
 */
export function fuzzConfig(seeded: Seeded): string {
  const dictionaries: Record<string, (string | number)[]> = {
    ...seeded,
    sessions: [...seeded.pendingSessions, ...seeded.paidSessions],
    goodCards: [GOOD_CARD],
    goodYears: [GOOD_YEAR],
    wallets: [FUZZ_WALLET],
    // A recovery's window must start at most 14 days back and end after it starts: instants no schema can
    // state, so a random draw almost never meets them (the fuzz drew none in a whole phase).
    recoverySince: [new Date(Date.now() - 24 * 3600_000).toISOString()],
    recoveryUntil: [new Date().toISOString()],
  };
  const bindings: Record<string, Record<string, string>> = {
    getCheckoutSession: { 'path.id': 'sessions' },
    getBalanceTransaction: { 'path.id': 'balanceTransactions' },
    getReserve: { 'path.id': 'reserves' },
    getDispute: { 'path.id': 'disputes' },
    getWebhookEndpoint: { 'path.id': 'endpoints' },
    updateWebhookEndpoint: { 'path.id': 'editableEndpoints' },
    patchWebhookEndpoint: { 'path.id': 'editableEndpoints' },
    rotateWebhookSecret: { 'path.id': 'editableEndpoints' },
    payCheckoutSession: { 'path.id': 'pendingSessions', 'body.card.number': 'goodCards', 'body.card.expYear': 'goodYears' },
    createRefund: { 'body.checkoutSessionId': 'paidSessions' },
    getRefund: { 'path.id': 'refunds' },
    getWithdrawal: { 'path.id': 'withdrawals' },
    cancelWithdrawal: { 'path.id': 'withdrawals' },
    createWithdrawal: { 'body.destinationDetails.walletEmail': 'wallets' },
    submitDisputeEvidence: { 'path.id': 'disputes' },
    retryWebhookDelivery: { 'path.id': 'eventsAndDeliveries' },
    testWebhookEndpoint: { 'path.id': 'endpoints' },
    recoverWebhookEndpoint: { 'path.id': 'endpoints', 'body.since': 'recoverySince', 'body.until': 'recoveryUntil' },
  };
  // Pay's session always comes from the seeded ones (and in turn, `rotations`): pay allows 10 calls a
  // minute per session id, and otherwise the document's example id was drawn for most cases.
  const always = new Set(['payCheckoutSession path.id']);
  const lines = ['', '# Written by scripts/fuzz.ts for this run: what it seeded (scripts/fuzz/seed.ts), drawn for half of the valid cases.'];
  for (const [name, values] of Object.entries(dictionaries)) lines.push(`[dictionaries.${name}]`, `values = ${JSON.stringify(values)}`);
  for (const [operationId, params] of Object.entries(bindings)) {
    const inline = Object.entries(params).map(
      ([param, dictionary]) => `${JSON.stringify(param)} = { dictionary = "${dictionary}", probability = ${always.has(`${operationId} ${param}`) ? 1 : 0.5} }`,
    );
    lines.push('[[operations]]', `include-operation-id = "${operationId}"`, `parameters = { ${inline.join(', ')} }`);
  }
  return `${lines.join('\n')}\n`;
}
