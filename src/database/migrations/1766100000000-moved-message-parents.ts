import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-26 (rendered by
 * `npm run capture:render -- --migration MovedMessageParents`): the literal statements, never edited again.
 *
 * What changed: a message moved to another conversation rewrites the parent named by the entries
 * of later-started transactions that committed before the move (they sort after the move's entry
 * and named the conversation it left; a client reading them last fetched it there and dropped it).
 */
export class MovedMessageParents1766100000000 implements MigrationInterface {
  name = 'MovedMessageParents1766100000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_changes_email_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'email_message', t.public_id, t.id, c.public_id, 'created', (SELECT app_change_epoch())
        FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'email_message', n.public_id, c.public_id, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id = o.company_id
    UNION ALL SELECT ROW(o.company_id, 'email_message', o.public_id, c.public_id, 'deleted', '{}'::text[], o.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = o.conversation_id AND c.company_id = o.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'email_message', n.public_id, c.public_id, 'created', '{}'::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT n.company_id, n.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        UNION SELECT o.company_id, o.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'email_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
    UPDATE change_log c SET parent_id = p.public_id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
        JOIN email_conversations p ON p.id = n.conversation_id AND p.company_id = n.company_id
      WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        AND c.company_id = n.company_id AND c.object = 'email_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.parent_id IS DISTINCT FROM p.public_id;
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat_message', t.public_id, t.id, c.public_id, 'created', (SELECT app_change_epoch())
        FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'chat_message', n.public_id, c.public_id, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id = o.company_id
    UNION ALL SELECT ROW(o.company_id, 'chat_message', o.public_id, c.public_id, 'deleted', '{}'::text[], o.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = o.conversation_id AND c.company_id = o.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'chat_message', n.public_id, c.public_id, 'created', '{}'::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT n.company_id, n.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        UNION SELECT o.company_id, o.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'chat_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
    UPDATE change_log c SET parent_id = p.public_id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
        JOIN chat_conversations p ON p.id = n.conversation_id AND p.company_id = n.company_id
      WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        AND c.company_id = n.company_id AND c.object = 'chat_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.parent_id IS DISTINCT FROM p.public_id;
  END IF;
  RETURN NULL;
END $$`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_changes_email_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'email_message', t.public_id, t.id, c.public_id, 'created', (SELECT app_change_epoch())
        FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'email_message', n.public_id, c.public_id, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id = o.company_id
    UNION ALL SELECT ROW(o.company_id, 'email_message', o.public_id, c.public_id, 'deleted', '{}'::text[], o.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = o.conversation_id AND c.company_id = o.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'email_message', n.public_id, c.public_id, 'created', '{}'::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN email_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT n.company_id, n.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        UNION SELECT o.company_id, o.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)) t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'email_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat_message', t.public_id, t.id, c.public_id, 'created', (SELECT app_change_epoch())
        FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'chat_message', n.public_id, c.public_id, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id = o.company_id
    UNION ALL SELECT ROW(o.company_id, 'chat_message', o.public_id, c.public_id, 'deleted', '{}'::text[], o.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = o.conversation_id AND c.company_id = o.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'chat_message', n.public_id, c.public_id, 'created', '{}'::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_conversations c ON c.id = n.conversation_id AND c.company_id = n.company_id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages']::text[], c.id)::change_row
      FROM (SELECT n.company_id, n.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
        UNION SELECT o.company_id, o.conversation_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)) t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'chat_message' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
];
