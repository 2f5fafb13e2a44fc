/**
 * The chaos run's load, drawn from the run's seed (each loop from a stream of its own): customers create
 * sessions (some replayed under their Idempotency-Key), pay them with succeeding and declining cards (some
 * twice at once, over both APIs), cancel some from the hosted page, read them, and merchants refund paid
 * ones and make withdrawals (some replayed, some cancelled). What was asked and answered is kept per
 * record (`Flows`), for the checks after the heal.
 */
import { randomUUID } from 'node:crypto';
import { CARDS, payBody, sessionBody } from '../support/payments.js';
import type { Call, ChaosClients } from './client.js';
import type { Rng } from './prng.js';

export interface ChaosBusiness {
  index: number;
  id: string;
  key: string;
}

export interface SessionFlow {
  id: string;
  business: number;
  card: string;
  /** Every pay call, retries included (two flows of them when paid twice at once). */
  pays: Call[];
  cancels: Call[];
}

export interface RefundFlow {
  sessionId: string;
  business: number;
  idempotencyKey: string;
  calls: Call[];
  /** The refund the answers named. */
  ids: string[];
}

export interface WithdrawalFlow {
  business: number;
  idempotencyKey: string;
  amountInCents: number;
  calls: Call[];
  ids: string[];
  cancels: Call[];
}

export interface Flows {
  sessions: SessionFlow[];
  refunds: RefundFlow[];
  withdrawals: WithdrawalFlow[];
  /** What a flow saw that no answer may be (a replay answering another record), with the calls. */
  problems: string[];
}

const CARD_WEIGHTS = [
  [CARDS.success, 50],
  [CARDS.otherValid, 10],
  [CARDS.declined, 12],
  [CARDS.insufficientFunds, 6],
  [CARDS.processingError, 6],
  [CARDS.refundDeclined, 16],
] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const last = (calls: Call[]) => calls[calls.length - 1];
/** A pay may be sent 10 times a minute per session: a customer's retries keep under it. */
const PAY_RETRY_WAIT_MS = 3_000;

export interface LoadContext {
  clients: ChaosClients;
  businesses: ChaosBusiness[];
  flows: Flows;
  stopped: () => boolean;
}

async function createSession(ctx: LoadContext, rng: Rng, biz: ChaosBusiness, n: number): Promise<string | null> {
  const idempotencyKey = randomUUID();
  const body = sessionBody({ description: `Chaos order ${biz.index}-${n}`, metadata: { chaos: true } });
  const calls = await ctx.clients.send('POST', '/api/checkout/sessions', { key: biz.key, body, idempotencyKey, api: rng.int(0, 1) });
  const answer = last(calls);
  if (answer.status !== 201) return null;
  const id = answer.body.id as string;
  if (rng.chance(0.2)) {
    const replay = last(await ctx.clients.send('POST', '/api/checkout/sessions', { key: biz.key, body, idempotencyKey, api: rng.int(0, 1) }));
    if ([200, 201].includes(replay.status) && replay.body.id !== id) ctx.flows.problems.push(`a replay of session create ${idempotencyKey} answered session ${replay.body.id}, the first ${id}`);
  }
  return id;
}

async function pay(ctx: LoadContext, rng: Rng, flow: SessionFlow): Promise<void> {
  const twice = rng.chance(0.15);
  const first = rng.int(0, 1);
  const payOnce = async (api: number) => {
    const calls = await ctx.clients.send('POST', `/api/checkout/${flow.id}/pay`, { body: payBody(flow.card), api, minWaitMs: PAY_RETRY_WAIT_MS });
    flow.pays.push(...calls);
  };
  await Promise.all(twice ? [payOnce(first), payOnce(1 - first)] : [payOnce(first)]);
}

async function refund(ctx: LoadContext, rng: Rng, biz: ChaosBusiness, sessionId: string): Promise<void> {
  const flow: RefundFlow = { sessionId, business: biz.index, idempotencyKey: randomUUID(), calls: [], ids: [] };
  ctx.flows.refunds.push(flow);
  const send = async () => {
    const calls = await ctx.clients.send('POST', '/api/refunds', { key: biz.key, body: { checkoutSessionId: sessionId }, idempotencyKey: flow.idempotencyKey, api: rng.int(0, 1) });
    flow.calls.push(...calls);
    const answer = last(calls);
    if ([200, 201].includes(answer.status)) flow.ids.push(answer.body.id);
  };
  await send();
  if (rng.chance(0.25)) await send(); // an idempotent replay
}

export async function customerLoop(ctx: LoadContext, rng: Rng): Promise<void> {
  for (let n = 0; !ctx.stopped(); n++) {
    const biz = rng.pick(ctx.businesses);
    const id = await createSession(ctx, rng, biz, n);
    if (!id) continue;
    const flow: SessionFlow = { id, business: biz.index, card: rng.weighted(CARD_WEIGHTS), pays: [], cancels: [] };
    ctx.flows.sessions.push(flow);
    if (rng.chance(0.08)) {
      flow.cancels.push(...(await ctx.clients.send('POST', `/checkout/${id}/cancel`, { api: rng.int(0, 1) })));
      continue;
    }
    await pay(ctx, rng, flow);
    const read = last(await ctx.clients.send('GET', `/api/checkout/sessions/${id}`, { key: biz.key, api: rng.int(0, 1), retry: false }));
    const paid = flow.pays.some((c) => c.status === 200 && c.body?.status === 'completed') || (read.status === 200 && read.body.status === 'completed');
    if (paid && rng.chance(0.5)) await refund(ctx, rng, biz, id);
    await sleep(rng.int(100, 600));
  }
}

export async function merchantLoop(ctx: LoadContext, rng: Rng, biz: ChaosBusiness): Promise<void> {
  for (let n = 0; !ctx.stopped(); n++) {
    const amount = rng.int(1, 5);
    const flow: WithdrawalFlow = { business: biz.index, idempotencyKey: randomUUID(), amountInCents: amount * 100, calls: [], ids: [], cancels: [] };
    ctx.flows.withdrawals.push(flow);
    const body = { amount, destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@merchant.example' }, notes: `chaos ${n}` };
    const send = async () => {
      const calls = await ctx.clients.send('POST', '/api/withdrawals', { key: biz.key, body, idempotencyKey: flow.idempotencyKey, api: rng.int(0, 1) });
      flow.calls.push(...calls);
      const answer = last(calls);
      if ([200, 201].includes(answer.status)) flow.ids.push(answer.body.id);
    };
    await send();
    if (rng.chance(0.2)) await send();
    const id = flow.ids[0];
    if (id && rng.chance(0.4)) {
      await sleep(rng.int(0, 2_500)); // racing the start of its processing (2 s)
      flow.cancels.push(...(await ctx.clients.send('POST', `/api/withdrawals/${id}/cancel`, { key: biz.key, api: rng.int(0, 1) })));
    }
    if (rng.chance(0.3)) await ctx.clients.send('GET', `/api/withdrawals?limit=5`, { key: biz.key, api: rng.int(0, 1), retry: false });
    if (id && rng.chance(0.3)) await ctx.clients.send('GET', `/api/withdrawals/${id}`, { key: biz.key, api: rng.int(0, 1), retry: false });
    await sleep(rng.int(300, 1_200));
  }
}
