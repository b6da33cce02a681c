import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-28 (rendered by
 * `npm run capture:render -- --migration SharedRowOrder`): the literal statements, never edited again,
 * and two indexes the shared-row locks read by.
 *
 * What changed (a review of the shared-row locks, #47): a new mailbox locks its owner, which it
 * attaches (a user renamed while an email was linked to a new mailbox of theirs kept the old name);
 * app_record_changes locks the records, not their documents, before it reads their kind and id
 * again (every writer of a record takes the record before its document, so the other order
 * deadlocked with them; a REPEATABLE READ part writer whose record changed kind after its snapshot
 * now fails with a serialization failure instead of naming the old kind); an id changes only with
 * a record's kind (a conversation's or message's never). Indexes: mailboxes by owner and team
 * memberships by team, which a user's and a team's rename lock through.
 */
export class SharedRowOrder1766600000003 implements MigrationInterface {
  name = 'SharedRowOrder1766600000003';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
  `CREATE INDEX mailboxes_owner_idx ON mailboxes (owner_id)`,
  `CREATE INDEX team_memberships_team_idx ON team_memberships (team_id)`,
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    -- A record's kind and id, which its entry names, may have changed since the caller's join
    -- read them (a part's foreign key check does not wait for a change of kind). So the records
    -- are locked first, in id order, as the kind change holds its record, and read again after,
    -- in a statement of its own: a change that committed meanwhile is seen (READ COMMITTED) or
    -- fails this transaction (REPEATABLE READ: a serialization failure), one still running waits.
    -- The record before its document, as every writer of a record takes them.
    PERFORM 1 FROM recordings x
      WHERE x.id IN (SELECT r.object_key FROM unnest(rows) r WHERE r.object IN ('meeting', 'call') AND r.action = 'updated')
      ORDER BY x.id FOR NO KEY UPDATE;
    WITH fresh AS (
      SELECT r.company_id, coalesce(x.kind, r.object) AS object, coalesce(x.public_id, r.object_id) AS object_id, r.parent_id, r.action, r.changed, r.object_key
      FROM unnest(rows) r
        LEFT JOIN recordings x ON r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id = r.object_key AND x.company_id = r.company_id
      -- A record deleted meanwhile: its own entry says so.
      WHERE NOT (r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id IS NULL)
    ), logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, object_key, epoch, parent_id, action, changed)
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, (SELECT app_change_epoch()), max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM fresh r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
        GROUP BY r.company_id, r.object, r.object_key
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET
          action = CASE WHEN EXCLUDED.action = 'updated' THEN c.action ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'updated' AND c.action = 'updated' THEN app_changed_union(c.changed, EXCLUDED.changed)
            ELSE '{}'::text[] END,
          parent_id = coalesce(EXCLUDED.parent_id, c.parent_id)
        -- Only where the entry says something new.
        WHERE (EXCLUDED.action <> 'updated' AND EXCLUDED.action <> c.action)
          OR (EXCLUDED.action = 'updated' AND c.action = 'updated' AND NOT EXCLUDED.changed <@ c.changed)
          OR (c.action <> 'deleted' AND EXCLUDED.parent_id IS DISTINCT FROM c.parent_id AND EXCLUDED.parent_id IS NOT NULL)
        RETURNING c.company_id, c.object, c.object_key, c.action
    )
    -- A change to a record's parts moves the record's updated_at: only where an entry was written
    -- or widened (not for the parts of a record created in this transaction); its own changes
    -- already did (app_touch_recording), which the condition on updated_at recognises.
    UPDATE recordings r SET updated_at = now()
      FROM logged x
      WHERE x.object IN ('meeting', 'call') AND x.action = 'updated'
        AND r.company_id = x.company_id AND r.id = x.object_key AND r.updated_at < now();
  END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT owner_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT template_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.owner_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.owner_id IS DISTINCT FROM o.owner_id) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT n.template_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.template_id IS DISTINCT FROM o.template_id) ORDER BY s.id FOR SHARE;
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id AND n.kind = o.kind) THEN
      RAISE EXCEPTION 'the id of a % does not change%', 'record', ' but with its kind'
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
    END IF;
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND EXISTS (SELECT 1 FROM change_log c WHERE c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
          AND c.epoch = (SELECT app_change_epoch()) AND c.xid = pg_current_xact_id() AND c.object_id <> n.public_id)) THEN
      RAISE EXCEPTION 'a record changes kind at most once a transaction when its id changes with it'
        USING ERRCODE = 'feature_not_supported', HINT = 'Commit the first change of kind, then make the next one.';
    END IF;
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
        ARRAY['details']::text[]
          || CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['transcript']::text[] ELSE '{}' END
          || CASE WHEN n.template_id IS DISTINCT FROM o.template_id THEN ARRAY['answers']::text[] ELSE '{}' END, n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.company_id = o.company_id AND n.kind = o.kind AND to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
        AND NOT n.id <@ (SELECT app_created_ids('recordings'))
    UNION ALL SELECT ROW(o.company_id, o.kind, o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
    UNION ALL SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT owner_id FROM new_rows) ORDER BY s.id FOR SHARE;
    -- Nothing to log.
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('mailboxes');
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.owner_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.owner_id IS DISTINCT FROM o.owner_id) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('email_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'email', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id) THEN
      RAISE EXCEPTION 'the id of a % does not change%', 'conversation', ''
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
    END IF;
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'email', n.public_id, NULL, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND NOT n.id <@ (SELECT app_created_ids('email_conversations'))
    UNION ALL SELECT ROW(o.company_id, 'email', o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'email', n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'email' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
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
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id) THEN
      RAISE EXCEPTION 'the id of a % does not change%', 'message', ''
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
    END IF;
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
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT seller_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_note_created('chat_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.seller_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.seller_id IS DISTINCT FROM o.seller_id) ORDER BY s.id FOR SHARE;
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id) THEN
      RAISE EXCEPTION 'the id of a % does not change%', 'conversation', ''
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
    END IF;
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND NOT n.id <@ (SELECT app_created_ids('chat_conversations'))
    UNION ALL SELECT ROW(o.company_id, 'chat', o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'chat' AND c.object_key = n.id
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
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id) THEN
      RAISE EXCEPTION 'the id of a % does not change%', 'message', ''
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
    END IF;
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
  `CREATE OR REPLACE TRIGGER mailboxes_changes_insert AFTER INSERT ON mailboxes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
  `ALTER TABLE mailboxes ENABLE ALWAYS TRIGGER mailboxes_changes_insert`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `DROP INDEX mailboxes_owner_idx`,
  `DROP INDEX team_memberships_team_idx`,
  `DROP TRIGGER mailboxes_changes_insert ON mailboxes`,
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    -- A record's kind, which its entry names, is in no key: a part's foreign key check does not
    -- wait for a kind change, and the caller's join may have read the kind before one committed.
    -- So the records' documents are locked first (a kind change empties, so locks, the same
    -- document), in key order, and the kind (with the id, which a kind change may give anew) is
    -- read again after, in a statement of its own: a kind change that committed meanwhile is
    -- seen, one still running waits for this transaction.
    PERFORM 1 FROM recording_documents d
      WHERE d.recording_id IN (SELECT r.object_key FROM unnest(rows) r WHERE r.object IN ('meeting', 'call') AND r.action = 'updated')
      ORDER BY d.recording_id FOR UPDATE;
    WITH fresh AS (
      SELECT r.company_id, coalesce(x.kind, r.object) AS object, coalesce(x.public_id, r.object_id) AS object_id, r.parent_id, r.action, r.changed, r.object_key
      FROM unnest(rows) r
        LEFT JOIN recordings x ON r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id = r.object_key AND x.company_id = r.company_id
      -- A record deleted meanwhile: its own entry says so.
      WHERE NOT (r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id IS NULL)
    ), logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, object_key, epoch, parent_id, action, changed)
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, (SELECT app_change_epoch()), max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM fresh r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
        GROUP BY r.company_id, r.object, r.object_key
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET
          action = CASE WHEN EXCLUDED.action = 'updated' THEN c.action ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'updated' AND c.action = 'updated' THEN app_changed_union(c.changed, EXCLUDED.changed)
            ELSE '{}'::text[] END,
          parent_id = coalesce(EXCLUDED.parent_id, c.parent_id)
        -- Only where the entry says something new.
        WHERE (EXCLUDED.action <> 'updated' AND EXCLUDED.action <> c.action)
          OR (EXCLUDED.action = 'updated' AND c.action = 'updated' AND NOT EXCLUDED.changed <@ c.changed)
          OR (c.action <> 'deleted' AND EXCLUDED.parent_id IS DISTINCT FROM c.parent_id AND EXCLUDED.parent_id IS NOT NULL)
        RETURNING c.company_id, c.object, c.object_key, c.action
    )
    -- A change to a record's parts moves the record's updated_at: only where an entry was written
    -- or widened (not for the parts of a record created in this transaction); its own changes
    -- already did (app_touch_recording), which the condition on updated_at recognises.
    UPDATE recordings r SET updated_at = now()
      FROM logged x
      WHERE x.object IN ('meeting', 'call') AND x.action = 'updated'
        AND r.company_id = x.company_id AND r.id = x.object_key AND r.updated_at < now();
  END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT owner_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT template_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.owner_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.owner_id IS DISTINCT FROM o.owner_id) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT n.template_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.template_id IS DISTINCT FROM o.template_id) ORDER BY s.id FOR SHARE;
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND EXISTS (SELECT 1 FROM change_log c WHERE c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
          AND c.epoch = (SELECT app_change_epoch()) AND c.xid = pg_current_xact_id() AND c.object_id <> n.public_id)) THEN
      RAISE EXCEPTION 'a record changes kind at most once a transaction when its id changes with it'
        USING ERRCODE = 'feature_not_supported', HINT = 'Commit the first change of kind, then make the next one.';
    END IF;
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
        ARRAY['details']::text[]
          || CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['transcript']::text[] ELSE '{}' END
          || CASE WHEN n.template_id IS DISTINCT FROM o.template_id THEN ARRAY['answers']::text[] ELSE '{}' END, n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.company_id = o.company_id AND n.kind = o.kind AND to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
        AND NOT n.id <@ (SELECT app_created_ids('recordings'))
    UNION ALL SELECT ROW(o.company_id, o.kind, o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
    UNION ALL SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('mailboxes');
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.owner_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.owner_id IS DISTINCT FROM o.owner_id) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('email_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'email', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'email', n.public_id, NULL, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND NOT n.id <@ (SELECT app_created_ids('email_conversations'))
    UNION ALL SELECT ROW(o.company_id, 'email', o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'email', n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'email' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
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
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT seller_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_note_created('chat_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.seller_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.seller_id IS DISTINCT FROM o.seller_id) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND NOT n.id <@ (SELECT app_created_ids('chat_conversations'))
    UNION ALL SELECT ROW(o.company_id, 'chat', o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id));
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'chat' AND c.object_key = n.id
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
