import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change triggers of the parts of records and conversations skip the objects created in the
 * same transaction before building their entries (see CREATED_HERE in the change-feed
 * migration), instead of building them for the merge to discard: a bulk insert's parts cost a
 * jsonb lookup per row, not an index probe and a row lock in `change_log`. Every capture
 * function is replaced in place (the triggers stay); the entries they write are unchanged.
 *
 * And compaction lets a `deleted` entry win when it folds an object's entries: entries are
 * ordered by the transaction's id, and a transaction that started writing earlier can delete an
 * object after a later-started one updated it and committed, so the `updated` sorts last.
 *
 * Frozen: the statements below are the literal SQL this migration runs, rendered once from the builders it used
 * (which no longer exist) and never to be edited again: a migration is history. Today's capture functions live in
 * src/changes/capture-sql.ts, and later migrations install them.
 */
export class ChangeCaptureSkipsCreated1764950000000 implements MigrationInterface {
  name = 'ChangeCaptureSkipsCreated1764950000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** What `up` runs. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  `CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'created', '{}'::text[])::change_row FROM new_rows t));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[])::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
           CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript'] ELSE ARRAY['details'] END
         )::change_row
         FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (to_jsonb(n) - 'updated_at') IS DISTINCT FROM (to_jsonb(o) - 'updated_at')));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
           CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript'] ELSE ARRAY['details'] END
         )::change_row
         FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (to_jsonb(n) - 'updated_at') IS DISTINCT FROM (to_jsonb(o) - 'updated_at'))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_transcripts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_evaluations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_answers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_tags() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_enablements() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_speaking_durations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_skill_scores() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_template_questions() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_templates() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_users() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_team_memberships() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows) u))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_teams() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_tags() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_skills() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'created', '{}'::text[])::change_row FROM new_rows t));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'deleted', '{}'::text[])::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row FROM new_rows t));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row FROM old_rows t)) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_participants() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'created', '{}'::text[])::change_row
      FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'created' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'deleted', '{}'::text[])::change_row
      FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'deleted' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[])::change_row
      FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[])::change_row
      FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'created', '{}'::text[])::change_row FROM new_rows t));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[])::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row FROM new_rows t));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row FROM old_rows t)) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[])::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'created', '{}'::text[])::change_row
      FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'created' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'deleted', '{}'::text[])::change_row
      FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'deleted' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[])::change_row
      FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[])::change_row
      FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE merged integer;
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.object_id
      FROM change_log c
      WHERE c.committed_at < cutoff AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.object_id = c.object_id
                      AND (n.xid, n.seq) > (c.xid, c.seq) AND n.xid < pg_snapshot_xmin(pg_current_snapshot()))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.object_id) n.company_id, n.object, n.object_id, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, object_id)
      WHERE n.xid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY n.company_id, n.object, n.object_id, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.object_id = s.object_id
        AND (c.xid, c.seq) < (s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.object_id, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, object_id, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, object_id
    )
    UPDATE change_log c SET
      action = CASE WHEN s.action = 'deleted' OR f.deleted THEN 'deleted' WHEN s.action = 'created' OR f.created THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN s.action = 'deleted' OR f.deleted OR s.action = 'created' OR f.created THEN '{}'::text[]
        ELSE app_changed_union(s.changed, f.changed) END
    FROM survivors s JOIN folded f USING (company_id, object, object_id)
    WHERE c.company_id = s.company_id AND c.xid = s.xid AND c.seq = s.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`,
];

/** What `down` runs: nothing (the functions before this migration wrote the same entries, more slowly). */
const DOWN: string[] = [];
