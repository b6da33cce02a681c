-- Change capture as it runs today, rendered from src/changes/capture-sql.ts by `npm run capture:render`.
-- Do not edit: edit capture-sql.ts, render, and add a migration that installs the new text.

-- Functions

CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$;

CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND object = ANY (ARRAY['meeting', 'call', 'email', 'chat'])
        AND epoch = app_live_change_epoch() AND xid = pg_current_xact_id() AND action = 'created');
  END $$;

CREATE OR REPLACE FUNCTION app_created_ids(tbl text) RETURNS int8multirange LANGUAGE plpgsql STABLE AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    noted text := current_setting('app.created_' || tbl, true);
  BEGIN
    IF starts_with(noted, mine) THEN RETURN substr(noted, length(mine) + 1)::int8multirange; END IF;
    RETURN '{}'::int8multirange;
  END $$;

CREATE OR REPLACE FUNCTION app_note_created(tbl text, ids int8multirange) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF ids IS NULL OR isempty(ids) THEN RETURN; END IF;
    PERFORM set_config('app.created_' || tbl, pg_current_xact_id()::text || ':' || (ids + app_created_ids(tbl))::text, true);
  END $$;

CREATE OR REPLACE FUNCTION app_record_change_epoch() RETURNS integer
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
  END $$;

CREATE OR REPLACE FUNCTION app_change_epoch() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    cached text := current_setting('app.change_epoch', true);
    e integer;
  BEGIN
    IF starts_with(cached, mine) THEN RETURN substr(cached, length(mine) + 1)::integer; END IF;
    e := app_record_change_epoch();
    PERFORM set_config('app.change_epoch', mine || e::text, true);
    RETURN e;
  END $$;

CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE plpgsql STABLE AS $$
  BEGIN
    IF pg_is_in_recovery() THEN
      RETURN (SELECT coalesce(max(e.epoch), 0) FROM change_epochs e);
    END IF;
    RETURN coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e));
  END $$;

CREATE OR REPLACE FUNCTION app_changed_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(p ORDER BY array_position(ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages'], p)), '{}')
    FROM (SELECT DISTINCT unnest(a || b) AS p) parts
  $$;

CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
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
  END $$;

CREATE OR REPLACE FUNCTION app_touch_recording() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF (to_jsonb(NEW) - 'updated_at') IS DISTINCT FROM (to_jsonb(OLD) - 'updated_at') THEN
      NEW.updated_at := greatest(now(), OLD.updated_at);
    END IF;
    RETURN NEW;
  END $$;

CREATE OR REPLACE FUNCTION app_require_read_committed(tbl text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'a change to % is captured at READ COMMITTED only', tbl
        USING ERRCODE = 'feature_not_supported',
          HINT = 'It changes how other rows are shown; at ' || upper(current_setting('transaction_isolation')) || ' its snapshot cannot see a record attached to them meanwhile. Run it at READ COMMITTED (the default).';
    END IF;
  END $$;

CREATE OR REPLACE FUNCTION app_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'TRUNCATE of % is not captured by the change feed', TG_TABLE_NAME
      USING ERRCODE = 'feature_not_supported', HINT = 'Delete the rows instead (DELETE FROM ...): every delete is captured.';
  END $$;

CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_transcripts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_evaluations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
      FROM (SELECT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings')) UNION SELECT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t
      JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
      WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_answers() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_tags() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_enablements() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_speaking_durations() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_recording_skill_scores() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_template_questions() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_team_memberships() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_users() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_teams() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_templates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('templates');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('tags');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('competitors');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_skills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM app_require_read_committed('skills');
    PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
      FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
      WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION app_changes_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_conversation_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_participants() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_messages() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_chat_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_changes_email_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM email_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'email_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM email_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$;

CREATE OR REPLACE FUNCTION app_changes_chat_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM chat_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, 'chat_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM chat_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$;

CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_conversation_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    merged integer;
    live integer := app_live_change_epoch();
    horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.object_key, c.object_id
      FROM change_log c
      WHERE c.committed_at < cutoff AND (c.epoch, c.xid) < (live, horizon)
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.object_key = c.object_key AND n.object_id = c.object_id
                      AND (n.epoch, n.xid) > (c.epoch, c.xid) AND (n.epoch, n.xid) < (live, horizon))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.object_key, n.object_id)
        n.company_id, n.object, n.object_key, n.object_id, n.epoch, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, object_key, object_id)
      WHERE (n.epoch, n.xid) < (live, horizon)
      ORDER BY n.company_id, n.object, n.object_key, n.object_id, n.epoch DESC, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.object_key = s.object_key AND c.object_id = s.object_id
        AND (c.epoch, c.xid, c.seq) < (s.epoch, s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.object_key, c.object_id, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, object_key, object_id, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, object_key, object_id
    ), judged AS (
      SELECT s.*, f.created OR s.action = 'created' AS created, f.deleted OR s.action = 'deleted' AS deleted, f.changed AS folded,
        CASE s.object
          WHEN 'email' THEN EXISTS (SELECT 1 FROM email_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat' THEN EXISTS (SELECT 1 FROM chat_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'email_message' THEN EXISTS (SELECT 1 FROM email_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat_message' THEN EXISTS (SELECT 1 FROM chat_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          ELSE EXISTS (SELECT 1 FROM recordings x WHERE x.id = s.object_key AND x.company_id = s.company_id AND x.kind = s.object
            AND x.public_id = s.object_id)
        END AS shown
      FROM survivors s JOIN folded f USING (company_id, object, object_key, object_id)
    )
    UPDATE change_log c SET
      action = CASE WHEN j.deleted AND NOT j.shown THEN 'deleted' WHEN j.created OR j.deleted THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN j.created OR j.deleted THEN '{}'::text[] ELSE app_changed_union(j.changed, j.folded) END
    FROM judged j
    WHERE c.company_id = j.company_id AND c.object = j.object AND c.epoch = j.epoch AND c.xid = j.xid AND c.seq = j.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$;

CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
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
  END $$;

-- Triggers

CREATE OR REPLACE TRIGGER recordings_changes_insert AFTER INSERT ON recordings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings();
ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_changes_insert;

CREATE OR REPLACE TRIGGER recordings_changes_update AFTER UPDATE ON recordings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings();
ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_changes_update;

CREATE OR REPLACE TRIGGER recordings_changes_delete AFTER DELETE ON recordings REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings();
ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_changes_delete;

CREATE OR REPLACE TRIGGER transcripts_changes_insert AFTER INSERT ON transcripts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts();
ALTER TABLE transcripts ENABLE ALWAYS TRIGGER transcripts_changes_insert;

CREATE OR REPLACE TRIGGER transcripts_changes_update AFTER UPDATE ON transcripts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts();
ALTER TABLE transcripts ENABLE ALWAYS TRIGGER transcripts_changes_update;

CREATE OR REPLACE TRIGGER transcripts_changes_delete AFTER DELETE ON transcripts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts();
ALTER TABLE transcripts ENABLE ALWAYS TRIGGER transcripts_changes_delete;

CREATE OR REPLACE TRIGGER recording_evaluations_changes_insert AFTER INSERT ON recording_evaluations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations();
ALTER TABLE recording_evaluations ENABLE ALWAYS TRIGGER recording_evaluations_changes_insert;

CREATE OR REPLACE TRIGGER recording_evaluations_changes_update AFTER UPDATE ON recording_evaluations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations();
ALTER TABLE recording_evaluations ENABLE ALWAYS TRIGGER recording_evaluations_changes_update;

CREATE OR REPLACE TRIGGER recording_evaluations_changes_delete AFTER DELETE ON recording_evaluations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations();
ALTER TABLE recording_evaluations ENABLE ALWAYS TRIGGER recording_evaluations_changes_delete;

CREATE OR REPLACE TRIGGER recording_answers_changes_insert AFTER INSERT ON recording_answers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers();
ALTER TABLE recording_answers ENABLE ALWAYS TRIGGER recording_answers_changes_insert;

CREATE OR REPLACE TRIGGER recording_answers_changes_update AFTER UPDATE ON recording_answers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers();
ALTER TABLE recording_answers ENABLE ALWAYS TRIGGER recording_answers_changes_update;

CREATE OR REPLACE TRIGGER recording_answers_changes_delete AFTER DELETE ON recording_answers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers();
ALTER TABLE recording_answers ENABLE ALWAYS TRIGGER recording_answers_changes_delete;

CREATE OR REPLACE TRIGGER recording_tags_changes_insert AFTER INSERT ON recording_tags REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags();
ALTER TABLE recording_tags ENABLE ALWAYS TRIGGER recording_tags_changes_insert;

CREATE OR REPLACE TRIGGER recording_tags_changes_update AFTER UPDATE ON recording_tags REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags();
ALTER TABLE recording_tags ENABLE ALWAYS TRIGGER recording_tags_changes_update;

CREATE OR REPLACE TRIGGER recording_tags_changes_delete AFTER DELETE ON recording_tags REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags();
ALTER TABLE recording_tags ENABLE ALWAYS TRIGGER recording_tags_changes_delete;

CREATE OR REPLACE TRIGGER recording_competitors_changes_insert AFTER INSERT ON recording_competitors REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors();
ALTER TABLE recording_competitors ENABLE ALWAYS TRIGGER recording_competitors_changes_insert;

CREATE OR REPLACE TRIGGER recording_competitors_changes_update AFTER UPDATE ON recording_competitors REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors();
ALTER TABLE recording_competitors ENABLE ALWAYS TRIGGER recording_competitors_changes_update;

CREATE OR REPLACE TRIGGER recording_competitors_changes_delete AFTER DELETE ON recording_competitors REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors();
ALTER TABLE recording_competitors ENABLE ALWAYS TRIGGER recording_competitors_changes_delete;

CREATE OR REPLACE TRIGGER recording_accounts_changes_insert AFTER INSERT ON recording_accounts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts();
ALTER TABLE recording_accounts ENABLE ALWAYS TRIGGER recording_accounts_changes_insert;

CREATE OR REPLACE TRIGGER recording_accounts_changes_update AFTER UPDATE ON recording_accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts();
ALTER TABLE recording_accounts ENABLE ALWAYS TRIGGER recording_accounts_changes_update;

CREATE OR REPLACE TRIGGER recording_accounts_changes_delete AFTER DELETE ON recording_accounts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts();
ALTER TABLE recording_accounts ENABLE ALWAYS TRIGGER recording_accounts_changes_delete;

CREATE OR REPLACE TRIGGER recording_enablements_changes_insert AFTER INSERT ON recording_enablements REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements();
ALTER TABLE recording_enablements ENABLE ALWAYS TRIGGER recording_enablements_changes_insert;

CREATE OR REPLACE TRIGGER recording_enablements_changes_update AFTER UPDATE ON recording_enablements REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements();
ALTER TABLE recording_enablements ENABLE ALWAYS TRIGGER recording_enablements_changes_update;

CREATE OR REPLACE TRIGGER recording_enablements_changes_delete AFTER DELETE ON recording_enablements REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements();
ALTER TABLE recording_enablements ENABLE ALWAYS TRIGGER recording_enablements_changes_delete;

CREATE OR REPLACE TRIGGER recording_speaking_durations_changes_insert AFTER INSERT ON recording_speaking_durations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations();
ALTER TABLE recording_speaking_durations ENABLE ALWAYS TRIGGER recording_speaking_durations_changes_insert;

CREATE OR REPLACE TRIGGER recording_speaking_durations_changes_update AFTER UPDATE ON recording_speaking_durations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations();
ALTER TABLE recording_speaking_durations ENABLE ALWAYS TRIGGER recording_speaking_durations_changes_update;

CREATE OR REPLACE TRIGGER recording_speaking_durations_changes_delete AFTER DELETE ON recording_speaking_durations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations();
ALTER TABLE recording_speaking_durations ENABLE ALWAYS TRIGGER recording_speaking_durations_changes_delete;

CREATE OR REPLACE TRIGGER recording_skill_scores_changes_insert AFTER INSERT ON recording_skill_scores REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores();
ALTER TABLE recording_skill_scores ENABLE ALWAYS TRIGGER recording_skill_scores_changes_insert;

CREATE OR REPLACE TRIGGER recording_skill_scores_changes_update AFTER UPDATE ON recording_skill_scores REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores();
ALTER TABLE recording_skill_scores ENABLE ALWAYS TRIGGER recording_skill_scores_changes_update;

CREATE OR REPLACE TRIGGER recording_skill_scores_changes_delete AFTER DELETE ON recording_skill_scores REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores();
ALTER TABLE recording_skill_scores ENABLE ALWAYS TRIGGER recording_skill_scores_changes_delete;

CREATE OR REPLACE TRIGGER template_questions_changes_insert AFTER INSERT ON template_questions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions();
ALTER TABLE template_questions ENABLE ALWAYS TRIGGER template_questions_changes_insert;

CREATE OR REPLACE TRIGGER template_questions_changes_update AFTER UPDATE ON template_questions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions();
ALTER TABLE template_questions ENABLE ALWAYS TRIGGER template_questions_changes_update;

CREATE OR REPLACE TRIGGER template_questions_changes_delete AFTER DELETE ON template_questions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions();
ALTER TABLE template_questions ENABLE ALWAYS TRIGGER template_questions_changes_delete;

CREATE OR REPLACE TRIGGER team_memberships_changes_insert AFTER INSERT ON team_memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships();
ALTER TABLE team_memberships ENABLE ALWAYS TRIGGER team_memberships_changes_insert;

CREATE OR REPLACE TRIGGER team_memberships_changes_update AFTER UPDATE ON team_memberships REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships();
ALTER TABLE team_memberships ENABLE ALWAYS TRIGGER team_memberships_changes_update;

CREATE OR REPLACE TRIGGER team_memberships_changes_delete AFTER DELETE ON team_memberships REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships();
ALTER TABLE team_memberships ENABLE ALWAYS TRIGGER team_memberships_changes_delete;

CREATE OR REPLACE TRIGGER users_changes_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users();
ALTER TABLE users ENABLE ALWAYS TRIGGER users_changes_insert;

CREATE OR REPLACE TRIGGER users_changes_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users();
ALTER TABLE users ENABLE ALWAYS TRIGGER users_changes_update;

CREATE OR REPLACE TRIGGER teams_changes_update AFTER UPDATE ON teams REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams();
ALTER TABLE teams ENABLE ALWAYS TRIGGER teams_changes_update;

CREATE OR REPLACE TRIGGER templates_changes_update AFTER UPDATE ON templates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates();
ALTER TABLE templates ENABLE ALWAYS TRIGGER templates_changes_update;

CREATE OR REPLACE TRIGGER tags_changes_update AFTER UPDATE ON tags REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags();
ALTER TABLE tags ENABLE ALWAYS TRIGGER tags_changes_update;

CREATE OR REPLACE TRIGGER competitors_changes_update AFTER UPDATE ON competitors REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors();
ALTER TABLE competitors ENABLE ALWAYS TRIGGER competitors_changes_update;

CREATE OR REPLACE TRIGGER skills_changes_update AFTER UPDATE ON skills REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills();
ALTER TABLE skills ENABLE ALWAYS TRIGGER skills_changes_update;

CREATE OR REPLACE TRIGGER accounts_changes_update AFTER UPDATE ON accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts();
ALTER TABLE accounts ENABLE ALWAYS TRIGGER accounts_changes_update;

CREATE OR REPLACE TRIGGER mailboxes_changes_insert AFTER INSERT ON mailboxes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes();
ALTER TABLE mailboxes ENABLE ALWAYS TRIGGER mailboxes_changes_insert;

CREATE OR REPLACE TRIGGER mailboxes_changes_update AFTER UPDATE ON mailboxes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes();
ALTER TABLE mailboxes ENABLE ALWAYS TRIGGER mailboxes_changes_update;

CREATE OR REPLACE TRIGGER email_conversations_changes_insert AFTER INSERT ON email_conversations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations();
ALTER TABLE email_conversations ENABLE ALWAYS TRIGGER email_conversations_changes_insert;

CREATE OR REPLACE TRIGGER email_conversations_changes_update AFTER UPDATE ON email_conversations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations();
ALTER TABLE email_conversations ENABLE ALWAYS TRIGGER email_conversations_changes_update;

CREATE OR REPLACE TRIGGER email_conversations_changes_delete AFTER DELETE ON email_conversations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations();
ALTER TABLE email_conversations ENABLE ALWAYS TRIGGER email_conversations_changes_delete;

CREATE OR REPLACE TRIGGER email_conversation_mailboxes_changes_insert AFTER INSERT ON email_conversation_mailboxes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes();
ALTER TABLE email_conversation_mailboxes ENABLE ALWAYS TRIGGER email_conversation_mailboxes_changes_insert;

CREATE OR REPLACE TRIGGER email_conversation_mailboxes_changes_update AFTER UPDATE ON email_conversation_mailboxes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes();
ALTER TABLE email_conversation_mailboxes ENABLE ALWAYS TRIGGER email_conversation_mailboxes_changes_update;

CREATE OR REPLACE TRIGGER email_conversation_mailboxes_changes_delete AFTER DELETE ON email_conversation_mailboxes REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes();
ALTER TABLE email_conversation_mailboxes ENABLE ALWAYS TRIGGER email_conversation_mailboxes_changes_delete;

CREATE OR REPLACE TRIGGER email_participants_changes_insert AFTER INSERT ON email_participants REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants();
ALTER TABLE email_participants ENABLE ALWAYS TRIGGER email_participants_changes_insert;

CREATE OR REPLACE TRIGGER email_participants_changes_update AFTER UPDATE ON email_participants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants();
ALTER TABLE email_participants ENABLE ALWAYS TRIGGER email_participants_changes_update;

CREATE OR REPLACE TRIGGER email_participants_changes_delete AFTER DELETE ON email_participants REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants();
ALTER TABLE email_participants ENABLE ALWAYS TRIGGER email_participants_changes_delete;

CREATE OR REPLACE TRIGGER email_conversation_accounts_changes_insert AFTER INSERT ON email_conversation_accounts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts();
ALTER TABLE email_conversation_accounts ENABLE ALWAYS TRIGGER email_conversation_accounts_changes_insert;

CREATE OR REPLACE TRIGGER email_conversation_accounts_changes_update AFTER UPDATE ON email_conversation_accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts();
ALTER TABLE email_conversation_accounts ENABLE ALWAYS TRIGGER email_conversation_accounts_changes_update;

CREATE OR REPLACE TRIGGER email_conversation_accounts_changes_delete AFTER DELETE ON email_conversation_accounts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts();
ALTER TABLE email_conversation_accounts ENABLE ALWAYS TRIGGER email_conversation_accounts_changes_delete;

CREATE OR REPLACE TRIGGER email_messages_changes_insert AFTER INSERT ON email_messages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages();
ALTER TABLE email_messages ENABLE ALWAYS TRIGGER email_messages_changes_insert;

CREATE OR REPLACE TRIGGER email_messages_changes_update AFTER UPDATE ON email_messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages();
ALTER TABLE email_messages ENABLE ALWAYS TRIGGER email_messages_changes_update;

CREATE OR REPLACE TRIGGER email_messages_changes_delete AFTER DELETE ON email_messages REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages();
ALTER TABLE email_messages ENABLE ALWAYS TRIGGER email_messages_changes_delete;

CREATE OR REPLACE TRIGGER chat_conversations_changes_insert AFTER INSERT ON chat_conversations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations();
ALTER TABLE chat_conversations ENABLE ALWAYS TRIGGER chat_conversations_changes_insert;

CREATE OR REPLACE TRIGGER chat_conversations_changes_update AFTER UPDATE ON chat_conversations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations();
ALTER TABLE chat_conversations ENABLE ALWAYS TRIGGER chat_conversations_changes_update;

CREATE OR REPLACE TRIGGER chat_conversations_changes_delete AFTER DELETE ON chat_conversations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations();
ALTER TABLE chat_conversations ENABLE ALWAYS TRIGGER chat_conversations_changes_delete;

CREATE OR REPLACE TRIGGER chat_conversation_accounts_changes_insert AFTER INSERT ON chat_conversation_accounts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts();
ALTER TABLE chat_conversation_accounts ENABLE ALWAYS TRIGGER chat_conversation_accounts_changes_insert;

CREATE OR REPLACE TRIGGER chat_conversation_accounts_changes_update AFTER UPDATE ON chat_conversation_accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts();
ALTER TABLE chat_conversation_accounts ENABLE ALWAYS TRIGGER chat_conversation_accounts_changes_update;

CREATE OR REPLACE TRIGGER chat_conversation_accounts_changes_delete AFTER DELETE ON chat_conversation_accounts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts();
ALTER TABLE chat_conversation_accounts ENABLE ALWAYS TRIGGER chat_conversation_accounts_changes_delete;

CREATE OR REPLACE TRIGGER chat_messages_changes_insert AFTER INSERT ON chat_messages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages();
ALTER TABLE chat_messages ENABLE ALWAYS TRIGGER chat_messages_changes_insert;

CREATE OR REPLACE TRIGGER chat_messages_changes_update AFTER UPDATE ON chat_messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages();
ALTER TABLE chat_messages ENABLE ALWAYS TRIGGER chat_messages_changes_update;

CREATE OR REPLACE TRIGGER chat_messages_changes_delete AFTER DELETE ON chat_messages REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages();
ALTER TABLE chat_messages ENABLE ALWAYS TRIGGER chat_messages_changes_delete;

CREATE OR REPLACE TRIGGER recordings_refuse_truncate BEFORE TRUNCATE ON recordings FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_refuse_truncate;

CREATE OR REPLACE TRIGGER transcripts_refuse_truncate BEFORE TRUNCATE ON transcripts FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE transcripts ENABLE ALWAYS TRIGGER transcripts_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_evaluations_refuse_truncate BEFORE TRUNCATE ON recording_evaluations FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_evaluations ENABLE ALWAYS TRIGGER recording_evaluations_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_answers_refuse_truncate BEFORE TRUNCATE ON recording_answers FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_answers ENABLE ALWAYS TRIGGER recording_answers_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_tags_refuse_truncate BEFORE TRUNCATE ON recording_tags FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_tags ENABLE ALWAYS TRIGGER recording_tags_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_competitors_refuse_truncate BEFORE TRUNCATE ON recording_competitors FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_competitors ENABLE ALWAYS TRIGGER recording_competitors_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_accounts_refuse_truncate BEFORE TRUNCATE ON recording_accounts FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_accounts ENABLE ALWAYS TRIGGER recording_accounts_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_enablements_refuse_truncate BEFORE TRUNCATE ON recording_enablements FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_enablements ENABLE ALWAYS TRIGGER recording_enablements_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_speaking_durations_refuse_truncate BEFORE TRUNCATE ON recording_speaking_durations FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_speaking_durations ENABLE ALWAYS TRIGGER recording_speaking_durations_refuse_truncate;

CREATE OR REPLACE TRIGGER recording_skill_scores_refuse_truncate BEFORE TRUNCATE ON recording_skill_scores FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE recording_skill_scores ENABLE ALWAYS TRIGGER recording_skill_scores_refuse_truncate;

CREATE OR REPLACE TRIGGER template_questions_refuse_truncate BEFORE TRUNCATE ON template_questions FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE template_questions ENABLE ALWAYS TRIGGER template_questions_refuse_truncate;

CREATE OR REPLACE TRIGGER team_memberships_refuse_truncate BEFORE TRUNCATE ON team_memberships FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE team_memberships ENABLE ALWAYS TRIGGER team_memberships_refuse_truncate;

CREATE OR REPLACE TRIGGER users_refuse_truncate BEFORE TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE users ENABLE ALWAYS TRIGGER users_refuse_truncate;

CREATE OR REPLACE TRIGGER teams_refuse_truncate BEFORE TRUNCATE ON teams FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE teams ENABLE ALWAYS TRIGGER teams_refuse_truncate;

CREATE OR REPLACE TRIGGER templates_refuse_truncate BEFORE TRUNCATE ON templates FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE templates ENABLE ALWAYS TRIGGER templates_refuse_truncate;

CREATE OR REPLACE TRIGGER tags_refuse_truncate BEFORE TRUNCATE ON tags FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE tags ENABLE ALWAYS TRIGGER tags_refuse_truncate;

CREATE OR REPLACE TRIGGER competitors_refuse_truncate BEFORE TRUNCATE ON competitors FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE competitors ENABLE ALWAYS TRIGGER competitors_refuse_truncate;

CREATE OR REPLACE TRIGGER skills_refuse_truncate BEFORE TRUNCATE ON skills FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE skills ENABLE ALWAYS TRIGGER skills_refuse_truncate;

CREATE OR REPLACE TRIGGER accounts_refuse_truncate BEFORE TRUNCATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE accounts ENABLE ALWAYS TRIGGER accounts_refuse_truncate;

CREATE OR REPLACE TRIGGER mailboxes_refuse_truncate BEFORE TRUNCATE ON mailboxes FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE mailboxes ENABLE ALWAYS TRIGGER mailboxes_refuse_truncate;

CREATE OR REPLACE TRIGGER email_conversations_refuse_truncate BEFORE TRUNCATE ON email_conversations FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE email_conversations ENABLE ALWAYS TRIGGER email_conversations_refuse_truncate;

CREATE OR REPLACE TRIGGER email_conversation_mailboxes_refuse_truncate BEFORE TRUNCATE ON email_conversation_mailboxes FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE email_conversation_mailboxes ENABLE ALWAYS TRIGGER email_conversation_mailboxes_refuse_truncate;

CREATE OR REPLACE TRIGGER email_participants_refuse_truncate BEFORE TRUNCATE ON email_participants FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE email_participants ENABLE ALWAYS TRIGGER email_participants_refuse_truncate;

CREATE OR REPLACE TRIGGER email_conversation_accounts_refuse_truncate BEFORE TRUNCATE ON email_conversation_accounts FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE email_conversation_accounts ENABLE ALWAYS TRIGGER email_conversation_accounts_refuse_truncate;

CREATE OR REPLACE TRIGGER email_messages_refuse_truncate BEFORE TRUNCATE ON email_messages FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE email_messages ENABLE ALWAYS TRIGGER email_messages_refuse_truncate;

CREATE OR REPLACE TRIGGER chat_conversations_refuse_truncate BEFORE TRUNCATE ON chat_conversations FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE chat_conversations ENABLE ALWAYS TRIGGER chat_conversations_refuse_truncate;

CREATE OR REPLACE TRIGGER chat_conversation_accounts_refuse_truncate BEFORE TRUNCATE ON chat_conversation_accounts FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE chat_conversation_accounts ENABLE ALWAYS TRIGGER chat_conversation_accounts_refuse_truncate;

CREATE OR REPLACE TRIGGER chat_messages_refuse_truncate BEFORE TRUNCATE ON chat_messages FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate();
ALTER TABLE chat_messages ENABLE ALWAYS TRIGGER chat_messages_refuse_truncate;

CREATE OR REPLACE TRIGGER email_conversations_messages_removed BEFORE DELETE ON email_conversations FOR EACH ROW EXECUTE FUNCTION app_changes_email_conversation_removed();
ALTER TABLE email_conversations ENABLE ALWAYS TRIGGER email_conversations_messages_removed;

CREATE OR REPLACE TRIGGER chat_conversations_messages_removed BEFORE DELETE ON chat_conversations FOR EACH ROW EXECUTE FUNCTION app_changes_chat_conversation_removed();
ALTER TABLE chat_conversations ENABLE ALWAYS TRIGGER chat_conversations_messages_removed;

CREATE OR REPLACE TRIGGER recordings_touch BEFORE UPDATE ON recordings FOR EACH ROW EXECUTE FUNCTION app_touch_recording();
ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_touch;

CREATE OR REPLACE TRIGGER change_log_documents_insert AFTER INSERT ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale();
ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_documents_insert;

CREATE OR REPLACE TRIGGER change_log_conversation_documents_insert AFTER INSERT ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_conversation_documents_stale();
ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_conversation_documents_insert;

CREATE OR REPLACE TRIGGER change_log_conversation_documents_update AFTER UPDATE ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_conversation_documents_stale();
ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_conversation_documents_update;

CREATE OR REPLACE TRIGGER change_log_documents_update AFTER UPDATE ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale();
ALTER TABLE change_log ENABLE ALWAYS TRIGGER change_log_documents_update;
