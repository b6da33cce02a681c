import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-28 (rendered by
 * `npm run capture:render -- --migration SharedRowLocks`): the literal statements, never edited again.
 */
export class SharedRowLocks1766600000000 implements MigrationInterface {
  name = 'SharedRowLocks1766600000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
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
    BEGIN
      INSERT INTO change_epochs (epoch, server_started_at)
        SELECT greatest(coalesce(max(epoch), 0) + 1, floor(extract(epoch FROM clock_timestamp()) - 1577836800)::integer),
          pg_postmaster_start_time()
        FROM change_epochs
        RETURNING epoch INTO e;
    EXCEPTION WHEN unique_violation THEN
      -- A REPEATABLE READ snapshot older than another writer's new life, in the same second: it
      -- cannot see that life's number and took the same one. A serialization failure, retried.
      RAISE EXCEPTION 'another writer recorded this server life after this transaction''s snapshot'
        USING ERRCODE = 'serialization_failure';
    END;
    -- REPEATABLE READ writers whose snapshot predates another's new life fail here with a
    -- serialization error (the row it wrote is not theirs to see) and are retried.
    INSERT INTO change_epoch_life (one, epoch, server_started_at) VALUES (true, e, pg_postmaster_start_time())
      ON CONFLICT (one) DO UPDATE SET epoch = EXCLUDED.epoch, server_started_at = EXCLUDED.server_started_at;
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    -- A record's kind, which its entry names, is in no key: a part's foreign key check does not
    -- wait for a kind change, and the caller's join may have read the kind before one committed.
    -- So the records' documents are locked first (a kind change empties, so locks, the same
    -- document), in key order, and the kind is read again after, in a statement of its own: a
    -- kind change that committed meanwhile is seen, one still running waits for this transaction.
    PERFORM 1 FROM recording_documents d
      WHERE d.recording_id IN (SELECT r.object_key FROM unnest(rows) r WHERE r.object IN ('meeting', 'call') AND r.action = 'updated')
      ORDER BY d.recording_id FOR UPDATE;
    WITH fresh AS (
      SELECT r.company_id, coalesce(x.kind, r.object) AS object, r.object_id, r.parent_id, r.action, r.changed, r.object_key
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
  `CREATE OR REPLACE FUNCTION app_require_read_committed(tbl text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'a change to % is captured at READ COMMITTED only', tbl
        USING ERRCODE = 'feature_not_supported',
          HINT = 'It changes how other rows are shown; at ' || upper(current_setting('transaction_isolation')) || ' its snapshot cannot see a record attached to them meanwhile. Run it at READ COMMITTED (the default).';
    END IF;
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
  `CREATE OR REPLACE FUNCTION app_changes_recording_answers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM template_questions s WHERE s.id IN (SELECT question_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM template_questions s WHERE s.id IN (SELECT n.question_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.question_id IS DISTINCT FROM o.question_id) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM tags s WHERE s.id IN (SELECT tag_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM tags s WHERE s.id IN (SELECT tag_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM competitors s WHERE s.id IN (SELECT competitor_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM competitors s WHERE s.id IN (SELECT competitor_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_speaking_durations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_skill_scores() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM skills s WHERE s.id IN (SELECT skill_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM users s WHERE s.id IN (SELECT n.user_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.user_id IS DISTINCT FROM o.user_id) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM skills s WHERE s.id IN (SELECT n.skill_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.skill_id IS DISTINCT FROM o.skill_id) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_template_questions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_require_read_committed('template_questions');
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT template_id FROM new_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_require_read_committed('template_questions');
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT template_id FROM old_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('template_questions');
    PERFORM 1 FROM templates s WHERE s.id IN (SELECT template_id FROM new_rows UNION SELECT template_id FROM old_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows UNION SELECT company_id, template_id FROM old_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_team_memberships() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_require_read_committed('team_memberships');
    PERFORM 1 FROM teams s WHERE s.id IN (SELECT team_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_require_read_committed('team_memberships');
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM old_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('team_memberships');
    PERFORM 1 FROM teams s WHERE s.id IN (SELECT team_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows UNION SELECT user_id FROM old_rows) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('users', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('users');
    PERFORM 1 FROM mailboxes s WHERE s.id IN (SELECT mb.id FROM mailboxes mb WHERE mb.owner_id IN (SELECT id FROM new_rows) UNION SELECT mb.id FROM mailboxes mb WHERE mb.owner_id IN (SELECT id FROM old_rows)) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_teams() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('teams');
    PERFORM 1 FROM users s WHERE s.id IN (SELECT m.user_id FROM team_memberships m WHERE m.team_id IN (SELECT id FROM new_rows) UNION SELECT m.user_id FROM team_memberships m WHERE m.team_id IN (SELECT id FROM old_rows)) ORDER BY s.id FOR NO KEY UPDATE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_templates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('templates');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('tags');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('competitors');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_skills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('skills');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('accounts');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
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
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM mailboxes s WHERE s.id IN (SELECT mailbox_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM mailboxes s WHERE s.id IN (SELECT mailbox_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
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
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM accounts s WHERE s.id IN (SELECT account_id FROM new_rows) ORDER BY s.id FOR SHARE;
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  END IF;
  RETURN NULL;
END $$`,
];

/** The capture before this migration. */
const DOWN: string[] = [
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
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)
        AND c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_answers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_speaking_durations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_skill_scores() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_template_questions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows UNION SELECT company_id, template_id FROM old_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_team_memberships() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, user_id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')) UNION SELECT company_id, user_id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users')))));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_note_created('users', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_teams() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
      WHERE (d.company_id, d.user_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
      WHERE (s.company_id, s.user_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      WHERE (mb.company_id, mb.owner_id) IN (SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows))));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_templates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_skills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
    UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
      WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
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
    UPDATE change_log c SET action = 'updated', changed = ARRAY['details']::text[]
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id
        AND c.company_id = n.company_id AND c.object = 'chat' AND c.object_key = n.id
        AND (c.epoch, c.xid) > ((SELECT app_change_epoch()), pg_current_xact_id()) AND c.action = 'deleted';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
      FROM (SELECT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations')) UNION SELECT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
  END IF;
  RETURN NULL;
END $$`,
  `DROP FUNCTION app_require_read_committed(text)`,
];
