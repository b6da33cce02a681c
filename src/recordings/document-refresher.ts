import { Injectable } from '@nestjs/common';
import { OwnerPool } from '../database/owner-pool';
import { lockWaiting, RefreshRun, refreshInTurn, WaitingRows } from '../database/read-model';
import { DOCUMENT_FORMAT, renderDocuments } from './recording.sql';
import { RECORDING_KINDS } from './recording.vocabulary';

/** Documents one refresher transaction renders at most. */
export const REFRESH_BATCH = 200;

/** The read model's rows, as lockWaiting finds those to write. */
const WAITING: WaitingRows = { table: 'recording_documents', key: 'recording_id', format: DOCUMENT_FORMAT };

/**
 * Fills the read model (recording_documents, see its migration): documents emptied by a write,
 * added empty for a new record, or written in another format. As the schema owner, on its pool
 * (OwnerPool). One transaction per batch: lock the batch's rows, skipping rows a writer or
 * another refresher holds; render with a snapshot taken after the locks (so every write that
 * emptied them before is seen, and every write after waits for this commit to empty them
 * again); write. Any number of refreshers share one database.
 */
@Injectable()
export class DocumentRefresher {
  constructor(private readonly db: OwnerPool) {}

  /**
   * One batch; `afterLock` runs between locking and rendering (tests force interleavings there).
   * Resolves with what it did; `rendered + removed` under `batch` means nothing more was waiting.
   */
  async refreshBatch(batch = REFRESH_BATCH, afterLock?: (ids: string[]) => Promise<void>): Promise<RefreshRun> {
    return this.db.transaction(async (client) => {
      const ids = await lockWaiting(client, WAITING, batch);
      if (afterLock) await afterLock(ids);
      let rendered = 0;
      for (const kind of RECORDING_KINDS) {
        const { rowCount } = await client.query(
          `UPDATE recording_documents d SET document = x.document, evaluation = x.evaluation, answers = x.answers, transcript = x.transcript, format = $2
           FROM (${renderDocuments(kind)}) x WHERE d.recording_id = x.id`,
          [ids, DOCUMENT_FORMAT],
        );
        rendered += rowCount ?? 0;
      }
      const { rowCount: removed } = await client.query(
        `DELETE FROM recording_documents d WHERE d.recording_id = ANY ($1::bigint[])
           AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = d.recording_id)`,
        [ids],
      );
      return { rendered, removed: removed ?? 0, batches: 1 };
    });
  }

  /** Batches until nothing waits (or `stop()` says so); what they did, summed. */
  async refreshAll(stop: () => boolean = () => false, batch = REFRESH_BATCH): Promise<RefreshRun> {
    return refreshInTurn([{ refreshBatch: (size) => this.refreshBatch(size), batch }], stop);
  }

  /** Adds an empty document for every record without one (records written while the capture was off). */
  async addMissing(): Promise<number> {
    const { rowCount } = await this.db.query(
      `INSERT INTO recording_documents (recording_id, company_id)
       SELECT r.id, r.company_id FROM recordings r
       WHERE NOT EXISTS (SELECT 1 FROM recording_documents d WHERE d.recording_id = r.id)
       ON CONFLICT DO NOTHING`,
    );
    return rowCount ?? 0;
  }

  /** Documents waiting to be written (empty, or of another format). */
  async waiting(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM recording_documents WHERE document IS NULL OR format < $1 OR format > $1`,
      [DOCUMENT_FORMAT],
    );
    return rows[0].n;
  }
}
