import type { MikroORM } from '@mikro-orm/postgresql';
import { DECLINE_MESSAGES, type ChargeLookup, type DeclineCode } from './processor.port.js';

/**
 * The simulator's own record of its charges, by idempotency key and mode: what a real processor keeps on
 * its side, and what lets it answer `retrieveCharge` after its `charge` call timed out. The first entry
 * under a key stands for good: a charge writes its outcome, and a lookup that finds nothing writes
 * `not_found`, which closes the key so no charge can land after the payment was failed on that answer.
 */
export interface SimulatorChargeBook {
  /** Writes `entry` under the key unless the key has one already; answers the entry that stands. */
  claim(idempotencyKey: string, livemode: boolean, entry: ChargeLookup): Promise<ChargeLookup>;
}

/** For a simulator with no database (unit tests; an API process, which only tokenises). Lost on restart. */
export function memoryChargeBook(): SimulatorChargeBook {
  const entries = new Map<string, ChargeLookup>();
  return {
    async claim(idempotencyKey, livemode, entry) {
      const key = `${livemode}:${idempotencyKey}`;
      if (!entries.has(key)) entries.set(key, entry);
      return entries.get(key)!;
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
  };
}
