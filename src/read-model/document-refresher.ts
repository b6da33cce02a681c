import { OwnerPool, Sql } from '../database/owner-pool';
import { lockWaiting, RefreshRun, refreshInTurn, WaitingRows } from './refresh-batches';

/**
 * A read model, or the part of one a refresher writes (`part`: one channel's conversations): its
 * rows as lockWaiting finds those to write, the `source` table whose rows they store (keyed by
 * `id`, with a `company_id`), and how the documents of some of those rows are written.
 */
export interface ReadModelDescriptor extends WaitingRows {
  source: string;
  /** Writes the documents of the keys `ids` (locked) in the descriptor's format; how many it wrote. Rows gone are not written. */
  render(client: Sql, ids: string[]): Promise<number>;
}

/**
 * Fills the stored documents of read models (recording_documents, conversation_documents: see
 * their migrations): documents emptied by a write, added empty for a new record, or written in
 * another format. As the schema owner, on its pool (OwnerPool). One transaction per batch: lock
 * the batch's rows, skipping rows a writer or another refresher holds; render with a snapshot
 * taken after the locks (so every write that emptied them before is seen, and every write after
 * waits for this commit to empty them again); write. Any number of refreshers share one database.
 * A batch takes from the `models` in their order, up to `batch` documents in all.
 */
export class DocumentRefresher {
  constructor(
    private readonly db: OwnerPool,
    private readonly models: readonly ReadModelDescriptor[],
    /** Documents one transaction renders at most. */
    readonly batch: number,
  ) {}

  /**
   * One batch; `afterLock` runs between locking and rendering (tests force interleavings there).
   * Resolves with what it did; `rendered + removed` under `batch` means nothing more was waiting.
   */
  async refreshBatch(batch = this.batch, afterLock?: (ids: string[]) => Promise<void>): Promise<RefreshRun> {
    return this.db.transaction(async (client) => {
      const locked: Array<{ model: ReadModelDescriptor; ids: string[] }> = [];
      let count = 0;
      for (const model of this.models) {
        if (count >= batch) break;
        const ids = await lockWaiting(client, model, batch - count);
        locked.push({ model, ids });
        count += ids.length;
      }
      if (afterLock) await afterLock(locked.flatMap((l) => l.ids));
      const run: RefreshRun = { rendered: 0, removed: 0, batches: 1 };
      for (const { model, ids } of locked) {
        if (!ids.length) continue;
        run.rendered += await model.render(client, ids);
        const values: unknown[] = [ids];
        const { rowCount: removed } = await client.query(
          `DELETE FROM ${model.table} d WHERE ${partOf(model, values)}d.${model.key} = ANY ($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM ${model.source} s WHERE s.id = d.${model.key})`,
          values,
        );
        run.removed += removed ?? 0;
      }
      return run;
    });
  }

  /** Batches until nothing waits (or `stop()` says so); what they did, summed. */
  async refreshAll(stop: () => boolean = () => false, batch = this.batch): Promise<RefreshRun> {
    return refreshInTurn([{ refreshBatch: (size) => this.refreshBatch(size), batch }], stop);
  }

  /** Adds an empty document for every row of a source without one (written while the capture was off). */
  async addMissing(): Promise<number> {
    let added = 0;
    for (const model of this.models) {
      const [column, value, where] = model.part ? [`${model.part.column}, `, '$1, ', `d.${model.part.column} = $1 AND `] : ['', '', ''];
      const { rowCount } = await this.db.query(
        `INSERT INTO ${model.table} (${column}${model.key}, company_id)
         SELECT ${value}s.id, s.company_id FROM ${model.source} s
         WHERE NOT EXISTS (SELECT 1 FROM ${model.table} d WHERE ${where}d.${model.key} = s.id)
         ON CONFLICT DO NOTHING`,
        model.part ? [model.part.value] : [],
      );
      added += rowCount ?? 0;
    }
    return added;
  }

  /** Documents waiting to be written (empty, or of another format). */
  async waiting(): Promise<number> {
    let waiting = 0;
    for (const model of this.models) {
      const values: unknown[] = [model.format];
      const { rows } = await this.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${model.table} d WHERE ${partOf(model, values)}(document IS NULL OR format < $1 OR format > $1)`,
        values,
      );
      waiting += rows[0].n;
    }
    return waiting;
  }
}

/** `d.column = $n AND ` for the part a model's refresher writes (its value added to `values`), or nothing. */
const partOf = (model: ReadModelDescriptor, values: unknown[]) =>
  model.part ? `d.${model.part.column} = $${values.push(model.part.value)} AND ` : '';
