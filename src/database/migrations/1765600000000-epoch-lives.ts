import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Epochs that end with every life of the server, and what a review of the capture found.
 *
 * 1. A crash restart keeps the postmaster's start time, yet crash recovery may hand out again
 *    transaction ids whose WAL never reached the disk: a life is now also ended by crash
 *    recovery, which empties the unlogged `change_epoch_life` (so do a promotion and a
 *    point-in-time recovery). Its start-time key is no longer unique in `change_epochs`.
 * 2. A new epoch's number is at least the seconds since 2020, so a life recorded after a recovery
 *    that lost the last epochs (never in the restored `change_epochs`) still sorts after them.
 * 3. Writers cache the epoch for their transaction, not their session (a database restored in
 *    place under pooled sessions no longer leaves them on the old one), and any writer role may
 *    record a life (EXECUTE to PUBLIC: it only ever records the current one).
 * 4. A conversation's removal locks its messages before telling them deleted (one moved out by a
 *    concurrent transaction was told deleted while it lived on elsewhere); conversations and
 *    messages moved back to a company rewrite a later-sorting `deleted` there, as records do;
 *    a record moved to another company takes its document's company with it.
 *
 * The functions' text was rendered by `npm run capture:render -- --migration EpochLives` from
 * src/changes/capture-sql.ts: literal statements, never edited again.
 */
export class EpochLives1765600000000 implements MigrationInterface {
  name = 'EpochLives1765600000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** The life marker, today's capture (what changed since the migration before). */
const UP: string[] = [
  `CREATE UNLOGGED TABLE change_epoch_life (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    epoch integer NOT NULL,
    server_started_at timestamptz NOT NULL
  )`,
  `INSERT INTO change_epoch_life (epoch, server_started_at)
    SELECT epoch, server_started_at FROM change_epochs WHERE server_started_at = pg_postmaster_start_time() ORDER BY epoch DESC LIMIT 1`,
  `ALTER TABLE change_epochs DROP CONSTRAINT change_epochs_server_started_at_key`,
  `CREATE OR REPLACE FUNCTION app_record_change_epoch() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE e integer;
  BEGIN
    SELECT l.epoch INTO e FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    -- One new life at a time: a second writer waits here, then finds the first one's.
    LOCK TABLE change_epochs IN SHARE ROW EXCLUSIVE MODE;
    SELECT l.epoch INTO e FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    INSERT INTO change_epochs (epoch, server_started_at)
      SELECT greatest(coalesce(max(epoch), 0) + 1, floor(extract(epoch FROM clock_timestamp()) - 1577836800)::integer),
        pg_postmaster_start_time()
      FROM change_epochs
      RETURNING epoch INTO e;
    -- REPEATABLE READ writers whose snapshot predates another's new life fail here with a
    -- serialization error (the row it wrote is not theirs to see) and are retried.
    INSERT INTO change_epoch_life (one, epoch, server_started_at) VALUES (true, e, pg_postmaster_start_time())
      ON CONFLICT (one) DO UPDATE SET epoch = EXCLUDED.epoch, server_started_at = EXCLUDED.server_started_at;
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_change_epoch() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    cached text := current_setting('app.change_epoch', true);
    e integer;
  BEGIN
    IF starts_with(cached, mine) THEN RETURN substr(cached, length(mine) + 1)::integer; END IF;
    e := app_record_change_epoch();
    PERFORM set_config('app.change_epoch', mine || e::text, true);
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      greatest((SELECT coalesce(max(e.epoch), 0) FROM change_epochs e) + 1,
        floor(extract(epoch FROM statement_timestamp()) - 1577836800)::integer))
  $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
        CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript']::text[] ELSE ARRAY['details']::text[] END, n.id)::change_row
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
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('chat_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
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
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM email_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'email_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM email_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM chat_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'chat_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM chat_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`,
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
];

/** The capture before this migration. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_record_change_epoch() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE e integer;
  BEGIN
    SELECT epoch INTO e FROM change_epochs WHERE server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    -- One new epoch at a time: a second writer waits here, then finds the first one's.
    LOCK TABLE change_epochs IN SHARE ROW EXCLUSIVE MODE;
    SELECT epoch INTO e FROM change_epochs WHERE server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    INSERT INTO change_epochs (epoch, server_started_at)
      SELECT coalesce(max(epoch), 0) + 1, pg_postmaster_start_time() FROM change_epochs
      ON CONFLICT (server_started_at) DO NOTHING
      RETURNING epoch INTO e;
    IF e IS NULL THEN
      -- A snapshot older than the lock (REPEATABLE READ): the epoch exists, retry the transaction.
      RAISE EXCEPTION 'a new change feed epoch was recorded concurrently' USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_change_epoch() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    cached text := current_setting('app.change_epoch', true);
    e integer;
  BEGIN
    IF cached IS NOT NULL AND cached <> '' THEN RETURN cached::integer; END IF;
    e := app_record_change_epoch();
    PERFORM set_config('app.change_epoch', e::text, false);
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT CASE WHEN e.server_started_at = pg_postmaster_start_time() THEN e.epoch ELSE e.epoch + 1 END
                     FROM change_epochs e ORDER BY e.epoch DESC LIMIT 1), 1)
  $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
        CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript']::text[] ELSE ARRAY['details']::text[] END, n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.company_id = o.company_id AND n.kind = o.kind AND to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
        AND NOT n.id <@ (SELECT app_created_ids('recordings'))
    UNION ALL SELECT ROW(o.company_id, o.kind, o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
    UNION ALL SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)));
    -- Back where it was: a later transaction's entry that it left this route (a meeting made a call,
    -- and back) cannot have been served yet (the horizon is below this transaction), and would sort
    -- after this one's created: it becomes a re-read, which a fetch answers with the truth.
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
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
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('chat_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
      SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created', (SELECT app_change_epoch()) FROM new_rows t
    ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'updated', ARRAY['details']::text[], n.id)::change_row
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND NOT n.id <@ (SELECT app_created_ids('chat_conversations'))
    UNION ALL SELECT ROW(o.company_id, 'chat', o.public_id, NULL, 'deleted', '{}'::text[], o.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
    UNION ALL SELECT ROW(n.company_id, 'chat', n.public_id, NULL, 'created', '{}'::text[], n.id)::change_row FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id));
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
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'email_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM email_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'chat_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM chat_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`,
  `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL WHERE d.document IS NOT NULL;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = (SELECT app_change_epoch())
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`,
  `REVOKE ALL ON FUNCTION app_record_change_epoch() FROM PUBLIC`,
  `ALTER TABLE change_epochs ADD CONSTRAINT change_epochs_server_started_at_key UNIQUE (server_started_at)`,
  `DROP TABLE change_epoch_life`,
];
