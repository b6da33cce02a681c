import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read model of meetings and calls: each record's JSON text, stored (`recording_documents`),
 * so that a page of 100 reads 100 stored documents instead of rendering 100 records from a dozen
 * tables (about 10 ms of PostgreSQL per page before; docs/BENCHMARKS.md).
 *
 * Kept current by the change capture itself: every entry the capture writes for a meeting or a
 * call, in the writing transaction, empties that record's document (`document` NULL) or, for a
 * new record, adds an empty one; a removed record's row goes. Readers use a document only when
 * it is there and of their format, and render the record live otherwise, so a reader never sees
 * a document older than the tables it reads, whatever the refresher is doing.
 *
 * The refresher (DocumentRefresher, in the worker) fills empty documents: it locks a batch of
 * them (`FOR UPDATE SKIP LOCKED`), renders them with a snapshot taken after the locks, and
 * writes them. A writer that changes a record meanwhile waits for that lock to empty the
 * document again, after the refresher committed: the refresher can never write a stale one.
 */
export class RecordingDocuments1765200000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE recording_documents (
        recording_id bigint PRIMARY KEY,
        company_id bigint NOT NULL,
        -- DOCUMENT_FORMAT of the statements that rendered it (recording.sql.ts); NULL while empty.
        format integer,
        -- The record's JSON text; NULL: to be rendered (readers render it live meanwhile).
        document text,
        CHECK ((format IS NULL) = (document IS NULL))
      )`);
    // What the refresher looks for: empty documents, and documents of another format.
    await q.query('CREATE INDEX recording_documents_empty ON recording_documents (recording_id) WHERE document IS NULL');
    await q.query('CREATE INDEX recording_documents_format ON recording_documents (format, recording_id)');
    await q.query(`SELECT app_enable_tenant_rls('recording_documents', 'company_id')`);
    // Entries of this transaction only: compaction rewrites old entries and changes nothing shown.
    // No foreign key to recordings: its check would cost a lookup per new record; a removed
    // record's `deleted` entry removes its document instead.
    await q.query(`
      CREATE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO recording_documents AS d (recording_id, company_id)
          SELECT DISTINCT e.object_key, e.company_id FROM entries e
          WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id()
          -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
          -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
          ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL WHERE d.document IS NOT NULL;
        DELETE FROM recording_documents d USING entries e
          WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id()
            AND d.recording_id = e.object_key;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER change_log_documents_insert AFTER INSERT ON change_log
      REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale()`);
    await q.query(`CREATE TRIGGER change_log_documents_update AFTER UPDATE ON change_log
      REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale()`);
    // Every record there is now: an empty document each, for the refresher to fill.
    await q.query(`INSERT INTO recording_documents (recording_id, company_id) SELECT id, company_id FROM recordings`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER change_log_documents_update ON change_log');
    await q.query('DROP TRIGGER change_log_documents_insert ON change_log');
    await q.query('DROP FUNCTION app_recording_documents_stale()');
    await q.query('DROP TABLE recording_documents');
  }
}
