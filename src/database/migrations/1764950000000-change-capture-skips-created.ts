import { MigrationInterface, QueryRunner } from 'typeorm';
import { CAPTURE, captureFunctionOf, COMPACT_CHANGES, CREATED_HERE } from './1764800000000-change-feed';

/**
 * The change triggers of the parts of records and conversations skip the objects created in the
 * same transaction before building their entries (see CREATED_HERE in the change-feed
 * migration), instead of building them for the merge to discard: a bulk insert's parts cost a
 * jsonb lookup per row, not an index probe and a row lock in `change_log`. Every capture
 * function is replaced in place (the triggers stay); the entries they write are unchanged.
 *
 * And compaction lets a `deleted` entry win when it folds an object's entries: entries are
 * ordered by the transaction's id, and a transaction that started writing earlier can delete an
 * object after a later-started one updated it and committed, so the `updated` sorts last.
 */
export class ChangeCaptureSkipsCreated1764950000000 implements MigrationInterface {
  name = 'ChangeCaptureSkipsCreated1764950000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of [...CREATED_HERE, ...CAPTURE.map(captureFunctionOf), COMPACT_CHANGES]) await q.query(sql);
  }

  async down(): Promise<void> {
    // The functions before this migration wrote the same entries, more slowly: nothing to undo.
  }
}
