import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read model stores a record's transcript beside its document too, as the JSON text
 * `include=transcript` embeds, written by the refresher with the document and in its format
 * (recording.sql.ts, STORED_PARTS), emptied by a write as the document is. Rendering it live was
 * most of what a page with transcripts cost PostgreSQL: 1,000 utterances a record, each checked
 * and written out again, a core busy for as long as one such page was read (bench:neighbours). The
 * price is the transcripts' bytes twice, once as the rows they are written to and once as text.
 */
export class DocumentTranscripts1766700000006 implements MigrationInterface {
  name = 'DocumentTranscripts1766700000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recording_documents ADD COLUMN transcript text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recording_documents DROP COLUMN transcript');
  }
}
