import { Sql } from '../database/owner-pool';

/** What a refresh of a read model did. */
export interface RefreshRun {
  /** Documents written. */
  rendered: number;
  /** Rows whose object is gone (removed while the capture was off, or meanwhile): deleted. */
  removed: number;
  batches: number;
}

/** The sum of two runs. */
const addRuns = (a: RefreshRun, b: RefreshRun): RefreshRun => ({
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

/** One refresher as refreshInTurn runs it: a batch of `batch` documents at a time. */
export interface RefreshTurn {
  refreshBatch: (batch: number) => Promise<RefreshRun>;
  batch: number;
}

/**
 * A batch of each refresher in turn until each did less than its `batch` (nothing more waited
 * there) or `stop()` says so; what they did, summed. In turn, so a backlog in one read model (a
 * release that changed its format) never holds another back.
 */
export async function refreshInTurn(refreshers: readonly RefreshTurn[], stop: () => boolean): Promise<RefreshRun> {
  let total: RefreshRun = { rendered: 0, removed: 0, batches: 0 };
  let waiting = [...refreshers];
  while (waiting.length && !stop()) {
    const next: RefreshTurn[] = [];
    for (const turn of waiting) {
      if (stop()) break;
      const run = await turn.refreshBatch(turn.batch);
      total = addRuns(total, run);
      if (run.rendered + run.removed >= turn.batch) next.push(turn);
    }
    waiting = next;
  }
  return total;
}
