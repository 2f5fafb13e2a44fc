import type { MikroORM } from '@mikro-orm/postgresql';
import { DECLINE_MESSAGES, type ChargeLookup, type DeclineCode } from '../processor.port.js';
import type { SimulatorMove } from './simulator-moves.rules.js';

/**
 * The simulator's own record of its charges (and of its refunds and payouts, `claimMove`), by idempotency
 * key and mode: what a real processor keeps on its side, and what lets it answer `retrieveCharge` after its `charge` call timed out. The first entry
 * under a key stands for good: a charge writes its outcome, and a lookup that finds nothing writes
 * `not_found`, which closes the key so no charge can land after the payment was failed on that answer.
 */
export interface SimulatorChargeBook {
  /** Writes `entry` under the key unless the key has one already; answers the entry that stands. */
  claim(idempotencyKey: string, livemode: boolean, entry: ChargeLookup): Promise<ChargeLookup>;
  /**
   * The same for a refund or a payout (simulator-moves.rules.ts): the first move under its kind, mode and
   * key stands and is answered to every later call, so the money each key moved can be counted.
   */
  claimMove(move: SimulatorMove): Promise<SimulatorMove>;
}

/** For a simulator with no database (unit tests; an API process, which only tokenises). Lost on restart. */
export function memoryChargeBook(): SimulatorChargeBook {
  const entries = new Map<string, ChargeLookup>();
  const moves = new Map<string, SimulatorMove>();
  return {
    async claim(idempotencyKey, livemode, entry) {
      const key = `${livemode}:${idempotencyKey}`;
      if (!entries.has(key)) entries.set(key, entry);
      return entries.get(key)!;
    },
    async claimMove(move) {
      const key = `${move.kind}:${move.livemode}:${move.idempotencyKey}`;
      if (!moves.has(key)) moves.set(key, move);
      return moves.get(key)!;
    },
  };
}

interface BookRow {
  status: ChargeLookup['status'];
  charge_id: string | null;
  decline_code: DeclineCode | null;
}

function entryOf(row: BookRow): ChargeLookup {
  if (row.status === 'succeeded') return { status: 'succeeded', chargeId: row.charge_id! };
  if (row.status === 'declined') return { status: 'declined', code: row.decline_code!, message: DECLINE_MESSAGES[row.decline_code!] };
  return { status: 'not_found' };
}

/**
 * The worker's book: the `simulator_charges` table, so a lookup after a worker restart still finds the
 * charge. Each statement commits on its own, outside any transaction of the service: the processor's
 * record is not the service's to roll back.
 */
export function postgresChargeBook(orm: MikroORM): SimulatorChargeBook {
  return {
    async claim(idempotencyKey, livemode, entry) {
      const connection = orm.em.getConnection();
      const inserted = await connection.execute<BookRow[]>(
        `insert into simulator_charges (livemode, idempotency_key, status, charge_id, decline_code) values (?, ?, ?, ?, ?)
         on conflict (livemode, idempotency_key) do nothing returning status, charge_id, decline_code`,
        [livemode, idempotencyKey, entry.status, entry.status === 'succeeded' ? entry.chargeId : null, entry.status === 'declined' ? entry.code : null],
      );
      if (inserted.length) return entryOf(inserted[0]);
      // Taken already (by an earlier attempt, or one that committed while this waited): a fresh statement sees it.
      const [standing] = await connection.execute<BookRow[]>(
        'select status, charge_id, decline_code from simulator_charges where livemode = ? and idempotency_key = ?',
        [livemode, idempotencyKey],
      );
      return entryOf(standing);
    },
    async claimMove(move) {
      const connection = orm.em.getConnection();
      const values = [move.kind, move.livemode, move.idempotencyKey, move.amountInCents, move.chargeId, move.status, move.reference, move.message];
      const inserted = await connection.execute<MoveRow[]>(
        `insert into simulator_money_moves (kind, livemode, idempotency_key, amount_in_cents, charge_id, status, reference, message)
         values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (kind, livemode, idempotency_key) do nothing returning ${MOVE_COLUMNS}`,
        values,
      );
      if (inserted.length) return moveOf(inserted[0]);
      const [standing] = await connection.execute<MoveRow[]>(
        `select ${MOVE_COLUMNS} from simulator_money_moves where kind = ? and livemode = ? and idempotency_key = ?`,
        [move.kind, move.livemode, move.idempotencyKey],
      );
      return moveOf(standing);
    },
  };
}

const MOVE_COLUMNS = 'kind, livemode, idempotency_key, amount_in_cents, charge_id, status, reference, message';

interface MoveRow {
  kind: SimulatorMove['kind'];
  livemode: boolean;
  idempotency_key: string;
  amount_in_cents: string | number;
  charge_id: string | null;
  status: SimulatorMove['status'];
  reference: string | null;
  message: string | null;
}

function moveOf(row: MoveRow): SimulatorMove {
  return {
    kind: row.kind,
    idempotencyKey: row.idempotency_key,
    livemode: row.livemode,
    amountInCents: Number(row.amount_in_cents),
    chargeId: row.charge_id,
    status: row.status,
    reference: row.reference,
    message: row.message,
  };
}
