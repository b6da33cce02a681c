import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-26 (rendered by
 * `npm run capture:render -- --migration ReadModelLockOrder`): the literal statements, never edited again.
 *
 * What changed: a writer's statement locks the read models' documents it empties (recordings'
 * and conversations') in key order, not in the order DISTINCT happened to produce, so two
 * statements that lock many of them (a user renamed, a batch of messages) take them in the same
 * order instead of deadlocking.
 */
export class ReadModelLockOrder1766300000000 implements MigrationInterface {
  name = 'ReadModelLockOrder1766300000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
    -- Locked in key order: two statements that lock many documents take them in the same order.
    ORDER BY e.object_key
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    -- A record moved to another company takes its document with it (row-level security reads it by company).
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`,
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
    ORDER BY x.channel, x.id
    -- As for the recordings: locked in key order; an empty document is left as it is but locked, and a conversation
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
];

/** The capture before this migration. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    -- A record moved to another company takes its document with it (row-level security reads it by company).
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`,
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
];
