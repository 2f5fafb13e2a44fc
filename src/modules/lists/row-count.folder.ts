import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/** Deltas one fold takes at most: a fold is one short transaction however far behind it is. */
const FOLD_BATCH = 50_000;
/** One folder at a time across every worker process: two would lock the same count rows in turn. */
const FOLD_LOCK = 0x726f7763; // 'rowc'

/**
 * Moves deltas into `row_counts`, summed per key, in one statement: a reader sees each delta either
 * still in `row_count_deltas` or already in its count, never both or neither. Returns how many it moved.
 */
export async function foldRowCounts(orm: MikroORM): Promise<number> {
  return orm.em.fork().transactional(async (tx) => {
    const [{ locked }] = await tx.execute<{ locked: boolean }[]>('select pg_try_advisory_xact_lock(?) as locked', [FOLD_LOCK]);
    if (!locked) return 0;
    const [{ moved }] = await tx.execute<{ moved: number }[]>(
      `with taken as (
         delete from row_count_deltas where id in (select id from row_count_deltas order by id limit ?)
         returning business_id, livemode, resource, key, delta),
       summed as (
         insert into row_counts (business_id, livemode, resource, key, count)
         select business_id, livemode, resource, key, sum(delta) from taken group by 1, 2, 3, 4
         on conflict (business_id, livemode, resource, key) do update set count = row_counts.count + excluded.count
         returning 1)
       select (select count(*) from taken)::int as moved`,
      [FOLD_BATCH],
    );
    return moved;
  });
}

/**
 * The worker's folder: folds every `everyMs`, and again at once while a fold was full, so deltas stay a
 * few seconds' worth and a total reads a handful of rows. Stops with the returned function.
 */
export function startRowCountFolder(orm: MikroORM, log: Logger, everyMs = 2_000): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        while (!stopped && (await foldRowCounts(orm)) >= FOLD_BATCH) {
          /* a full batch: more are waiting */
        }
      } catch (err) {
        log.warn({ err }, 'folding list counts failed; the next fold retries');
      }
      if (!stopped) timer = setTimeout(tick, everyMs);
    })();
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
