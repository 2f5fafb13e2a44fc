/**
 * The chaos run's invariants, checked from outside once the faults have stopped and everything healed:
 * from the answers the clients kept, the service's rows, and the processor simulator's own record of
 * what it charged, refunded and paid out. Each check answers its breaches, one line each, with the calls
 * and rows that show it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { constructEvent } from '../../packages/webhooks/src/construct-event.js';
import { moneyProblems } from '../faults/support/money.js';
import { adminLedgerVerify, ledgerBalanceProblems } from '../soak/money-checks.js';
import type { ReceivedWebhook } from '../support/webhook-receiver.js';
import { describeCall, type Call, type History } from './client.js';
import type { Flows, SessionFlow } from './load.js';

const rows = <T>(orm: MikroORM, query: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(query, params);

export interface SessionRow {
  id: string;
  status: string;
  payment_attempt_id: string | null;
  refused_attempt_ids: string[];
  processor_charge_id: string | null;
  charge_status: string | null;
  charge_id: string | null;
  payments: number;
}

/** What a status may become later: an answer may be behind the session, never ahead of it or off its path. */
const LATER: Record<string, string[]> = {
  pending: ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'],
  processing: ['completed', 'failed', 'refunded'],
  completed: ['completed', 'refunded'],
  failed: ['failed'],
  cancelled: ['cancelled'],
  refunded: ['refunded'],
};

const toldStatus = (c: Call): string | null => {
  if (c.status === 200) return c.body?.status ?? null;
  if (c.status === 400) return /in (\w+) status/.exec(String(c.body?.message))?.[1] ?? null;
  return null;
};

/** A fault as it happened: down from `from` (ms since the load started) until `to` (null: never up again by itself). */
export interface FaultWindow {
  from: number;
  to: number | null;
  text: string;
}

/** The faults under way while the calls were waiting (from 10 s before the first to the end of the last). */
function faultsAround(calls: Call[], windows: FaultWindow[]): string[] {
  if (!calls.length) return [];
  const from = Math.min(...calls.map((c) => c.at)) - 10_000;
  const to = Math.max(...calls.map((c) => c.at + c.ms));
  return windows
    .filter((w) => w.from <= to && (w.to ?? Infinity) >= from)
    .map((w) => `fault +${(w.from / 1000).toFixed(1)}..${w.to === null ? '?' : `+${(w.to / 1000).toFixed(1)}`} s: ${w.text}`);
}

const evidence = (flow: SessionFlow, row: SessionRow, windows: FaultWindow[] = []) =>
  `\n      row: status ${row.status}, payment_attempt_id ${row.payment_attempt_id}, refused_attempt_ids ${JSON.stringify(row.refused_attempt_ids)}, ` +
  `processor charge ${row.charge_status ?? 'none'} ${row.charge_id ?? ''}, payment postings ${row.payments}; card ${flow.card}` +
  flow.pays.map((c) => `\n      ${describeCall(c)}`).join('') +
  faultsAround(flow.pays, windows).map((w) => `\n      ${w}`).join('');

/** Every pay answer against how its session ended; a session moved though every call was told to retry (503) or refused (400). */
export function answerProblems(flows: Flows, sessions: Map<string, SessionRow>, windows: FaultWindow[] = []): string[] {
  const problems: string[] = [];
  for (const flow of flows.sessions) {
    const row = sessions.get(flow.id);
    if (!row) {
      problems.push(`session ${flow.id}: created (201) but not in the database`);
      continue;
    }
    for (const c of flow.pays) {
      const told = toldStatus(c);
      if (told === null) continue;
      const allowed = c.status === 200 && told === 'processing' ? LATER.processing : c.status === 200 ? LATER[told] ?? [told] : [told, ...(LATER[told] ?? [])];
      if (!allowed.includes(row.status)) problems.push(`session ${flow.id}: a pay answered ${c.status} "${told}", and the session ended ${row.status}${evidence(flow, row, windows)}`);
    }
    // The call that moved the session is told its status (200), or got no answer (its API was killed):
    // if every call got a 503 or a 400, a call told to retry was the one that moved it.
    const mover = flow.pays.some((c) => c.status === 200 || c.status === 0);
    if (row.payment_attempt_id && !mover && flow.pays.some((c) => c.status === 503)) {
      problems.push(`session ${flow.id}: answered 503 (retry), yet its payment went ahead (${row.status}, attempt ${row.payment_attempt_id}) and no call was told so${evidence(flow, row, windows)}`);
    }
    for (const c of flow.cancels) {
      if (c.status === 303 && row.status !== 'cancelled') problems.push(`session ${flow.id}: cancelled from the page (303), ended ${row.status}${evidence(flow, row)}`);
    }
  }
  return problems;
}

/** Any 5xx but a 503 with Retry-After, and a 503 without it. */
export function serverErrors(history: History): string[] {
  return history.calls.filter((c) => c.status >= 500 && !(c.status === 503 && c.retryAfter !== undefined)).map((c) => `${describeCall(c)} ${JSON.stringify(c.body).slice(0, 300)}`);
}

/** One charge per paid session by the processor's record, and a charge exactly where the session was paid. */
export function chargeProblems(flows: Flows, sessions: Map<string, SessionRow>): string[] {
  const problems: string[] = [];
  for (const flow of flows.sessions) {
    const row = sessions.get(flow.id);
    if (!row) continue;
    const paid = ['completed', 'refunded'].includes(row.status);
    const charged = row.charge_status === 'succeeded';
    if (paid !== charged || row.payments !== (paid ? 1 : 0) || (paid && row.processor_charge_id !== row.charge_id)) {
      problems.push(`session ${flow.id}: ${row.status} with the processor's charge ${row.charge_status ?? 'none'} (${row.charge_id}), recorded charge ${row.processor_charge_id}, ${row.payments} payment postings${evidence(flow, row)}`);
    }
  }
  return problems;
}

interface MoveRow {
  kind: 'refund' | 'payout';
  idempotency_key: string;
  status: string;
  amount_in_cents: string;
  charge_id: string | null;
}

/** One refund per refund and one payout per withdrawal by the processor's record; nothing the service never asked. */
export async function processorMoveProblems(orm: MikroORM, businessIds: string[]): Promise<string[]> {
  const problems: string[] = [];
  const moves = await rows<MoveRow>(orm, 'select kind, idempotency_key, status, amount_in_cents::text, charge_id from simulator_money_moves where not livemode');
  const byKey = new Map(moves.map((m) => [`${m.kind}:${m.idempotency_key}`, m]));
  const refunds = await rows<{ id: string; status: string; amount_in_cents: string; charge: string | null }>(
    orm,
    `select r.id, r.status, r.amount_in_cents::text, s.processor_charge_id as charge from refunds r join checkout_sessions s on s.id = r.checkout_session_id where r.business_id in (?)`,
    [businessIds],
  );
  const withdrawals = await rows<{ id: string; status: string; amount_in_cents: string }>(orm, 'select id, status, amount_in_cents::text from withdrawals where business_id in (?)', [businessIds]);
  for (const r of refunds) {
    const move = byKey.get(`refund:${r.id}`);
    const refunded = move?.status === 'succeeded';
    if ((r.status === 'completed') !== refunded) problems.push(`refund ${r.id} is ${r.status}; the processor's record: ${move ? `${move.status} ${move.amount_in_cents}` : 'none'}`);
    if (move && (move.amount_in_cents !== r.amount_in_cents || move.charge_id !== r.charge)) problems.push(`refund ${r.id}: ${r.amount_in_cents} of ${r.charge}, the processor refunded ${move.amount_in_cents} of ${move.charge_id}`);
  }
  for (const w of withdrawals) {
    const move = byKey.get(`payout:${w.id}`);
    if ((w.status === 'completed') !== (move?.status === 'succeeded')) problems.push(`withdrawal ${w.id} is ${w.status}; the processor's payout: ${move ? `${move.status} ${move.amount_in_cents}` : 'none'}`);
    if (move && move.amount_in_cents !== w.amount_in_cents) problems.push(`withdrawal ${w.id} of ${w.amount_in_cents}: the processor paid out ${move.amount_in_cents}`);
    if (w.status === 'cancelled' && move) problems.push(`withdrawal ${w.id} is cancelled, but the processor has a payout for it (${move.status})`);
  }
  const known = new Set([...refunds.map((r) => `refund:${r.id}`), ...withdrawals.map((w) => `payout:${w.id}`)]);
  // Moves of these businesses only: a move's key is its record's id, so an unknown key is one no record asked for.
  const ours = moves.filter((m) => (m.kind === 'refund' ? refunds.some((r) => r.charge === m.charge_id) : true));
  for (const m of ours) if (!known.has(`${m.kind}:${m.idempotency_key}`)) problems.push(`the processor has a ${m.kind} under ${m.idempotency_key} (${m.status} ${m.amount_in_cents}) that no record asked for`);
  const refundedPerCharge = new Map<string, number>();
  for (const m of moves) if (m.kind === 'refund' && m.status === 'succeeded') refundedPerCharge.set(m.charge_id!, (refundedPerCharge.get(m.charge_id!) ?? 0) + 1);
  for (const [charge, n] of refundedPerCharge) if (n > 1) problems.push(`charge ${charge} refunded ${n} times by the processor's record`);
  return problems;
}

/** Refunds and withdrawals terminal, no session left `processing`. */
export async function unsettled(orm: MikroORM, businessIds: string[]): Promise<string[]> {
  const left = await rows<{ what: string; id: string; status: string }>(
    orm,
    `select 'refund' as what, id, status from refunds where business_id in (?) and status not in ('completed', 'failed')
     union all select 'withdrawal', id, status from withdrawals where business_id in (?) and status not in ('completed', 'failed', 'cancelled')
     union all select 'session', id::text, status from checkout_sessions where business_id in (?) and status = 'processing'`,
    [businessIds, businessIds, businessIds],
  );
  return left.map((r) => `${r.what} ${r.id} still ${r.status}`);
}

/** Replays answered the first record, and each key made one record. */
export async function replayProblems(orm: MikroORM, flows: Flows, businessIds: string[]): Promise<string[]> {
  const problems = [...flows.problems];
  for (const f of [...flows.refunds, ...flows.withdrawals]) {
    const ids = new Set(f.ids);
    if (ids.size > 1) problems.push(`one Idempotency-Key (${f.idempotencyKey}) answered ${ids.size} records: ${[...ids].join(', ')}`);
  }
  const twice = await rows<{ business_id: string; notes: string; n: number }>(
    orm,
    `select business_id, notes, count(*)::int as n from withdrawals where business_id in (?) group by business_id, notes having count(*) > 1`,
    [businessIds],
  );
  for (const t of twice) problems.push(`withdrawal "${t.notes}" of ${t.business_id} made ${t.n} times under one Idempotency-Key`);
  return problems;
}

export interface Endpoint {
  businessId: string;
  path: string;
  secret: string;
  createdAt: Date;
}

/** Every event of each business since its endpoint was made reached it, signed with its secret. */
export async function webhookProblems(orm: MikroORM, endpoints: Endpoint[], received: ReceivedWebhook[]): Promise<string[]> {
  const problems: string[] = [];
  for (const ep of endpoints) {
    const events = await rows<{ id: string; type: string }>(orm, 'select id, type from events where business_id = ? and not livemode and created_at >= ?', [ep.businessId, ep.createdAt]);
    const delivered = new Set<string>();
    let unsigned = 0;
    for (const r of received.filter((x) => x.path === ep.path)) {
      try {
        const header = r.headers['x-webhook-signature'];
        const event = constructEvent(r.rawBody, Array.isArray(header) ? header[0] : header, ep.secret, { nowSeconds: Math.floor(r.at / 1000) });
        delivered.add(String(event.id));
      } catch (err) {
        if (unsigned++ < 5) problems.push(`a delivery to ${ep.path} failed verification: ${(err as Error).message}`);
      }
    }
    const missing = events.filter((e) => !delivered.has(e.id));
    for (const e of missing.slice(0, 20)) problems.push(`event ${e.id} (${e.type}) of ${ep.businessId} never reached its endpoint, signed`);
    if (missing.length > 20) problems.push(`… and ${missing.length - 20} more events undelivered`);
  }
  return problems;
}

export async function sessionRows(orm: MikroORM, ids: string[]): Promise<Map<string, SessionRow>> {
  if (!ids.length) return new Map();
  const found = await rows<SessionRow>(
    orm,
    `select s.id::text, s.status, s.payment_attempt_id, s.refused_attempt_ids, s.processor_charge_id, c.status as charge_status, c.charge_id,
       (select count(*)::int from ledger_transactions t where t.kind = 'payment' and t.reference_id = s.id::text) as payments
     from checkout_sessions s left join simulator_charges c on c.idempotency_key = s.id::text and not c.livemode
     where s.id::text in (?)`,
    [ids],
  );
  return new Map(found.map((r) => [r.id, r]));
}

export async function ledgerProblems(orm: MikroORM, databaseUrl: string, businessIds: string[]): Promise<string[]> {
  const verify = await adminLedgerVerify(databaseUrl);
  return [
    ...(verify.exitCode === 0 ? [] : [`ledger verify exited ${verify.exitCode}: ${verify.output.slice(0, 2000)}`]),
    ...(await moneyProblems(orm)),
    ...(await ledgerBalanceProblems(orm, businessIds)),
  ];
}
