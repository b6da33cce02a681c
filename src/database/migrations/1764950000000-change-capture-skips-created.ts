import { MigrationInterface, QueryRunner } from 'typeorm';
import { CAPTURE, captureFunctionOf, CREATED_HERE } from './1764800000000-change-feed';

/**
 * The change triggers of the parts of records and conversations skip the objects created in the
 * same transaction before building their entries (see CREATED_HERE in the change-feed
 * migration), instead of building them for the merge to discard: a bulk insert's parts cost a
 * jsonb lookup per row, not an index probe and a row lock in `change_log`. Every capture
 * function is replaced in place (the triggers stay); the entries they write are unchanged.
 */
export class ChangeCaptureSkipsCreated1764950000000 implements MigrationInterface {
  name = 'ChangeCaptureSkipsCreated1764950000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of [...CREATED_HERE, ...CAPTURE.map(captureFunctionOf)]) await q.query(sql);
  }

  async down(): Promise<void> {
    // The functions before this migration wrote the same entries, more slowly: nothing to undo.
  }
}
