import { Sql } from './owner-pool';

/** What a refresh of a read model did. */
export interface RefreshRun {
  /** Documents written. */
  rendered: number;
  /** Rows whose object is gone (removed while the capture was off, or meanwhile): deleted. */
  removed: number;
  batches: number;
}

/** The sum of two runs. */
export const addRuns = (a: RefreshRun, b: RefreshRun): RefreshRun => ({
  rendered: a.rendered + b.rendered,
  removed: a.removed + b.removed,
  batches: a.batches + b.batches,
});

/** A read model's table as lockWaiting reads it: its rows' `key`, its `format`, and the part (`column = value`) one refresher writes. */
export interface WaitingRows {
  table: string;
  key: string;
  format: number;
  part?: { column: string; value: string };
}

/**
 * Locks up to `batch` rows of a read model waiting to be written that no one else holds (`FOR
 * UPDATE SKIP LOCKED`: a writer holding one is emptying it, another refresher is writing it);
 * their keys, as text. Empty documents first, through their partial index in key order, then
 * documents of another format through the format index (two ranges): each an index walk that
 * stops at `batch`, whatever the table's size (a single OR of the three let PostgreSQL scan the
 * table from its start on every batch).
 */
export async function lockWaiting(client: Sql, rows: WaitingRows, batch: number): Promise<string[]> {
  const keys: string[] = [];
  const order = [...(rows.part ? [rows.part.column] : []), rows.key].join(', ');
  for (const waiting of ['document IS NULL', 'format <', 'format >']) {
    if (keys.length >= batch) break;
    const values: unknown[] = [batch - keys.length];
    const where = [
      ...(rows.part ? [`${rows.part.column} = $${values.push(rows.part.value)}`] : []),
      waiting.startsWith('format') ? `${waiting} $${values.push(rows.format)}` : waiting,
    ];
    const { rows: found } = await client.query<{ key: string }>(
      `SELECT ${rows.key}::text AS key FROM ${rows.table} WHERE ${where.join(' AND ')}
       ORDER BY ${waiting.startsWith('format') ? 'format, ' : ''}${order} LIMIT $1 FOR UPDATE SKIP LOCKED`,
      values,
    );
    keys.push(...found.map((r) => r.key));
  }
  return keys;
}

/** Batches of `refreshBatch` until one did less than `batch` (nothing more waited) or `stop()` says so; what they did, summed. */
export async function refreshUntilDone(
  refreshBatch: (batch: number) => Promise<RefreshRun>,
  batch: number,
  stop: () => boolean,
): Promise<RefreshRun> {
  let total: RefreshRun = { rendered: 0, removed: 0, batches: 0 };
  while (!stop()) {
    const run = await refreshBatch(batch);
    total = addRuns(total, run);
    if (run.rendered + run.removed < batch) break;
  }
  return total;
}
