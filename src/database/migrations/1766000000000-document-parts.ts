import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read model stores two of a record's parts beside its document: the overall evaluation and
 * the answers, each as the JSON text `include` embeds (recording.sql.ts), written by the
 * refresher with the document and in its format. A write empties the document and its format
 * (the change capture, as before); readers use the stored parts only when the format is theirs,
 * so a part left behind in an emptied row is never served. The transcript is not stored: it is
 * most of a record's bytes, and storing it again would double them.
 */
export class DocumentParts1766000000000 implements MigrationInterface {
  name = 'DocumentParts1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recording_documents ADD COLUMN evaluation text, ADD COLUMN answers text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recording_documents DROP COLUMN answers, DROP COLUMN evaluation');
  }
}
