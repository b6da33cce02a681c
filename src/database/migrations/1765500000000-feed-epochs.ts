import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Epochs, and pages bounded whatever the mix of types.
 *
 * 1. Entries carried raw transaction ids, and the counter can go back: a logical dump restored
 *    into another cluster, a point-in-time recovery, a standby promoted after missing the last
 *    WAL. New entries then sorted before clients' stored cursors (skipped forever), and the
 *    restored entries above the new counter never fell below the horizon (the feed stalled).
 *    Every entry now carries `epoch`, one life of the server (`change_epochs`, keyed by the
 *    postmaster's start time, which changes whenever the counter can have gone back, and on
 *    every other restart, harmlessly). The feed orders by (epoch, xid, seq) and serves every
 *    entry of an earlier epoch (their transactions have all ended) and of this one below the
 *    horizon. Existing entries, endpoint positions and horizon marks are of epoch 1; cursors
 *    sealed before hold [xid, seq], read as epoch 1. `pg_upgrade` keeps the counter (and restarts
 *    the server: a new epoch, harmless).
 * 2. The primary key was (company_id, xid, seq), and a page of one type walked it filtering the
 *    other types row by row: 1,020,164 entries read to return 35 on a log of a million chat
 *    messages. It is now (company_id, object, epoch, xid, seq): a page reads, per type asked, a
 *    range of it from the position to the horizon, and merges them. The merge's unique key gains
 *    the epoch (a rewound counter may reuse an xid). The log is analyzed at the end, so its first
 *    pages after the migration are planned from statistics.
 *
 * The index builds read and rewrite the log in the migration's transaction, holding an
 * exclusive lock on it (feed reads and logged writes wait): run it in a window sized to the log.
 * The functions' text was rendered by `npm run capture:render -- --migration FeedEpochs` from
 * src/changes/capture-sql.ts: literal statements, never edited again.
 */
export class FeedEpochs1765500000000 implements MigrationInterface {
  name = 'FeedEpochs1765500000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** The epochs, today's capture (what changed since the migration before), the new keys. */
const UP: string[] = [
  `CREATE TABLE change_epochs (
    epoch integer PRIMARY KEY,
    server_started_at timestamptz NOT NULL UNIQUE,
    began_at timestamptz NOT NULL DEFAULT clock_timestamp()
  )`,
  `INSERT INTO change_epochs (epoch, server_started_at) VALUES (1, pg_postmaster_start_time())`,
  `ALTER TABLE change_log ADD COLUMN epoch integer NOT NULL DEFAULT 1`,
  `ALTER TABLE change_log ALTER COLUMN epoch DROP DEFAULT`,
  `ALTER TABLE change_horizons ADD COLUMN epoch integer NOT NULL DEFAULT 1`,
  `ALTER TABLE change_horizons ALTER COLUMN epoch DROP DEFAULT`,
  `ALTER TABLE webhook_endpoints ADD COLUMN position_epoch integer NOT NULL DEFAULT 1`,
  `ALTER TABLE webhook_endpoints ALTER COLUMN position_epoch DROP DEFAULT`,
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND object = ANY (ARRAY['meeting', 'call', 'email', 'chat'])
        AND epoch = app_live_change_epoch() AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
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
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    WITH logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, object_key, epoch, parent_id, action, changed)
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, (SELECT app_change_epoch()), max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM unnest(rows) r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
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
  `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    merged integer;
    live integer := app_live_change_epoch();
    horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.object_key
      FROM change_log c
      WHERE c.committed_at < cutoff AND (c.epoch, c.xid) < (live, horizon)
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.object_key = c.object_key
                      AND (n.epoch, n.xid) > (c.epoch, c.xid) AND (n.epoch, n.xid) < (live, horizon))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.object_key) n.company_id, n.object, n.object_key, n.epoch, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, object_key)
      WHERE (n.epoch, n.xid) < (live, horizon)
      ORDER BY n.company_id, n.object, n.object_key, n.epoch DESC, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.object_key = s.object_key
        AND (c.epoch, c.xid, c.seq) < (s.epoch, s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.object_key, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, object_key, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, object_key
    ), judged AS (
      SELECT s.*, f.created OR s.action = 'created' AS created, f.deleted OR s.action = 'deleted' AS deleted, f.changed AS folded,
        CASE s.object
          WHEN 'email' THEN EXISTS (SELECT 1 FROM email_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat' THEN EXISTS (SELECT 1 FROM chat_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'email_message' THEN EXISTS (SELECT 1 FROM email_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat_message' THEN EXISTS (SELECT 1 FROM chat_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          ELSE EXISTS (SELECT 1 FROM recordings x WHERE x.id = s.object_key AND x.company_id = s.company_id AND x.kind = s.object)
        END AS shown
      FROM survivors s JOIN folded f USING (company_id, object, object_key)
    )
    UPDATE change_log c SET
      action = CASE WHEN j.deleted AND NOT j.shown THEN 'deleted' WHEN j.created OR j.deleted THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN j.created OR j.deleted THEN '{}'::text[] ELSE app_changed_union(j.changed, j.folded) END
    FROM judged j
    WHERE c.company_id = j.company_id AND c.object = j.object AND c.epoch = j.epoch AND c.xid = j.xid AND c.seq = j.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    -- The snapshot is taken before clock_timestamp() is read: the mark never claims more than it knows.
    INSERT INTO change_horizons (marked_at, epoch, horizon)
      VALUES (clock_timestamp(), app_record_change_epoch(), pg_snapshot_xmin(pg_current_snapshot()))
      ON CONFLICT (marked_at) DO NOTHING;
    DELETE FROM change_horizons h
      WHERE h.marked_at < clock_timestamp() - interval '1 day'
        AND EXISTS (SELECT 1 FROM change_horizons k
                    WHERE k.marked_at >= date_trunc('hour', h.marked_at) AND k.marked_at < h.marked_at);
  END $$`,
  `REVOKE ALL ON FUNCTION app_record_change_epoch() FROM PUBLIC`,
  `ALTER TABLE change_log DROP CONSTRAINT change_log_pkey`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_pkey PRIMARY KEY (company_id, object, epoch, xid, seq)`,
  `ALTER TABLE change_log DROP CONSTRAINT change_log_object_transaction_key`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_object_transaction_key UNIQUE (company_id, object, object_key, epoch, xid)`,
  `ANALYZE change_log`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    WITH logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, changed)
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM unnest(rows) r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
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
    PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action)
      SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created' FROM new_rows t
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
        AND c.xid > pg_current_xact_id() AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('email_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action)
      SELECT t.company_id, 'email', t.public_id, t.id, NULL, 'created' FROM new_rows t
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
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action)
      SELECT t.company_id, 'email_message', t.public_id, t.id, c.public_id, 'created'
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
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action)
      SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created' FROM new_rows t
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
    INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action)
      SELECT t.company_id, 'chat_message', t.public_id, t.id, c.public_id, 'created'
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
  `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id()
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL WHERE d.document IS NOT NULL;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id()
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE merged integer;
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.object_key
      FROM change_log c
      WHERE c.committed_at < cutoff AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.object_key = c.object_key
                      AND n.xid > c.xid AND n.xid < pg_snapshot_xmin(pg_current_snapshot()))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.object_key) n.company_id, n.object, n.object_key, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, object_key)
      WHERE n.xid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY n.company_id, n.object, n.object_key, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.object_key = s.object_key
        AND (c.xid, c.seq) < (s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.object_key, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, object_key, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, object_key
    ), judged AS (
      SELECT s.*, f.created OR s.action = 'created' AS created, f.deleted OR s.action = 'deleted' AS deleted, f.changed AS folded,
        CASE s.object
          WHEN 'email' THEN EXISTS (SELECT 1 FROM email_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat' THEN EXISTS (SELECT 1 FROM chat_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'email_message' THEN EXISTS (SELECT 1 FROM email_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat_message' THEN EXISTS (SELECT 1 FROM chat_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          ELSE EXISTS (SELECT 1 FROM recordings x WHERE x.id = s.object_key AND x.company_id = s.company_id AND x.kind = s.object)
        END AS shown
      FROM survivors s JOIN folded f USING (company_id, object, object_key)
    )
    UPDATE change_log c SET
      action = CASE WHEN j.deleted AND NOT j.shown THEN 'deleted' WHEN j.created OR j.deleted THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN j.created OR j.deleted THEN '{}'::text[] ELSE app_changed_union(j.changed, j.folded) END
    FROM judged j
    WHERE c.company_id = j.company_id AND c.xid = j.xid AND c.seq = j.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    -- The snapshot is taken before clock_timestamp() is read: the mark never claims more than it knows.
    INSERT INTO change_horizons (marked_at, horizon) VALUES (clock_timestamp(), pg_snapshot_xmin(pg_current_snapshot()))
      ON CONFLICT (marked_at) DO NOTHING;
    DELETE FROM change_horizons h
      WHERE h.marked_at < clock_timestamp() - interval '1 day'
        AND EXISTS (SELECT 1 FROM change_horizons k
                    WHERE k.marked_at >= date_trunc('hour', h.marked_at) AND k.marked_at < h.marked_at);
  END $$`,
  `DROP FUNCTION app_record_change_epoch()`,
  `DROP FUNCTION app_change_epoch()`,
  `DROP FUNCTION app_live_change_epoch()`,
  `ALTER TABLE change_log DROP CONSTRAINT change_log_object_transaction_key`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_object_transaction_key UNIQUE (company_id, object, object_key, xid)`,
  `ALTER TABLE change_log DROP CONSTRAINT change_log_pkey`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_pkey PRIMARY KEY (company_id, xid, seq)`,
  `ALTER TABLE webhook_endpoints DROP COLUMN position_epoch`,
  `ALTER TABLE change_horizons DROP COLUMN epoch`,
  `ALTER TABLE change_log DROP COLUMN epoch`,
  `DROP TABLE change_epochs`,
];
