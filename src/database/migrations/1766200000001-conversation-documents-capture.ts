import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-26 (rendered by
 * `npm run capture:render -- --migration ConversationDocumentsCapture`): the literal statements, never edited again.
 *
 * What changed: the change capture's entries keep the conversations' read model
 * (conversation_documents, the previous migration) current, as they keep the recordings'.
 */
export class ConversationDocumentsCapture1766200000001 implements MigrationInterface {
  name = 'ConversationDocumentsCapture1766200000001';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_conversation_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO conversation_documents AS d (channel, conversation_id, company_id)
    SELECT DISTINCT x.channel, x.id, x.company_id FROM (
      SELECT e.object AS channel, e.object_key AS id, e.company_id FROM entries e
        WHERE e.object IN ('email', 'chat') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      UNION ALL SELECT 'email', c.id, c.company_id FROM entries e
        JOIN email_conversations c ON c.company_id = e.company_id AND c.public_id = e.parent_id
        WHERE e.object = 'email_message' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      UNION ALL SELECT 'chat', c.id, c.company_id FROM entries e
        JOIN chat_conversations c ON c.company_id = e.company_id AND c.public_id = e.parent_id
        WHERE e.object = 'chat_message' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
    ) x
    -- As for the recordings: an empty document is left as it is but locked, and a conversation
    -- moved to another company takes its document with it.
    ON CONFLICT (channel, conversation_id) DO UPDATE SET document = NULL, messages = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  DELETE FROM conversation_documents d USING entries e
    WHERE e.object IN ('email', 'chat') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      AND d.channel = e.object AND d.conversation_id = e.object_key
      AND NOT (e.object = 'email' AND EXISTS (SELECT 1 FROM email_conversations c WHERE c.id = e.object_key))
      AND NOT (e.object = 'chat' AND EXISTS (SELECT 1 FROM chat_conversations c WHERE c.id = e.object_key));
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER change_log_conversation_documents_insert AFTER INSERT ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_conversation_documents_stale()`,
  `ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_conversation_documents_insert`,
  `CREATE OR REPLACE TRIGGER change_log_conversation_documents_update AFTER UPDATE ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_conversation_documents_stale()`,
  `ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_conversation_documents_update`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `DROP TRIGGER change_log_conversation_documents_insert ON change_log`,
  `DROP TRIGGER change_log_conversation_documents_update ON change_log`,
  `DROP FUNCTION app_conversation_documents_stale()`,
];
