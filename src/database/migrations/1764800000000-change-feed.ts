import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed (`GET /v1/changes`): a log of which objects changed, filled by triggers on
 * every tenant table a route shows, so every writer is covered (seeds, the activity simulator,
 * a capture system writing this database).
 *
 * `change_log` holds at most one entry per object per writing transaction: `xid` is the
 * transaction (`pg_current_xact_id()`), `seq` the order of first writes within it. The feed
 * serves only entries whose `xid` is below `pg_snapshot_xmin(pg_current_snapshot())`, in
 * `(xid, seq)` order: every transaction that could still add an entry before a served position
 * has finished, so a reader never moves past a change that commits later. The entry of an
 * object that several statements of one transaction touch is merged (ON CONFLICT on
 * `change_log_transaction_object_key`): `deleted` wins, then `created` (which means "read it
 * all": `changed` empty), else `updated` with the union of the parts to re-read.
 *
 * Statement-level triggers with transition tables: a bulk seed of 25,000 records logs them in
 * one INSERT per table and statement, not one per row. Each table's trigger maps its rows to
 * the objects whose routes show them:
 * - recordings → the meeting or call itself (created, updated `details`, `transcript` when the
 *   transcript status moved, deleted); a BEFORE trigger moves `updated_at` on every real change,
 *   and a change to a part moves it too (so an update of `updated_at` alone logs nothing);
 * - transcripts → `details` (the record's `updated_at` moved), `transcript`; evaluations →
 *   `details`, `evaluation`; answers and template questions → `details`, `answers`; every other
 *   part of a record, and the shared rows a record shows (owner, team, template, tags,
 *   competitors, accounts, skills) → `details`;
 * - conversations → the conversation; their mailboxes, participants and accounts → `details`;
 * - messages → the message (parent: its conversation), and its conversation `messages` when a
 *   message arrives or is removed.
 * Removing a record removes its parts by cascade; their triggers find no record left and log
 * nothing, the record's own `deleted` entry says it all.
 *
 * Compaction (`app_compact_changes`, SECURITY DEFINER: the API role only reads the log) merges
 * entries older than a cutoff into the newest entry of their object, in batches, under an
 * advisory lock, so one instance compacts at a time.
 *
 * Indexes: the primary key `(company_id, xid, seq)` serves the feed (a range walk from the
 * cursor); `change_log_transaction_object_key` the merge; `change_log_object_idx` compaction's
 * "is there a newer entry of this object"; `change_log_committed_idx` its candidates.
 *
 * As first built. Since `1765100000000-lean-change-capture`, entries carry `object_key` and one
 * unique index `(company_id, object, object_key, xid)` replaces the merge's and compaction's.
 *
 * Frozen: the statements below are the literal SQL this migration runs, rendered once from the builders it used
 * (which no longer exist) and never to be edited again: a migration is history. Today's capture functions live in
 * src/changes/capture-sql.ts, and later migrations install them.
 */
export class ChangeFeed1764800000000 implements MigrationInterface {
  name = 'ChangeFeed1764800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** What `up` runs. */
const UP: string[] = [
  `CREATE TABLE change_log (
    company_id bigint NOT NULL REFERENCES companies (id),
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    seq bigint GENERATED ALWAYS AS IDENTITY,
    public_id text NOT NULL DEFAULT app_public_id('chg_'),
    object text NOT NULL CHECK (object IN ('meeting', 'call', 'email', 'email_message', 'chat', 'chat_message')),
    object_id text NOT NULL,
    parent_id text,
    action text NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
    changed text[] NOT NULL DEFAULT '{}'
      CHECK (changed <@ ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages']),
    committed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, xid, seq),
    CONSTRAINT change_log_transaction_object_key UNIQUE (company_id, xid, object, object_id)
  )`,
  `CREATE INDEX change_log_object_idx ON change_log (company_id, object, object_id, xid, seq)`,
  `CREATE INDEX change_log_committed_idx ON change_log (committed_at)`,
  `SELECT app_enable_tenant_rls('change_log', 'company_id')`,
  `CREATE TYPE change_row AS (company_id bigint, object text, object_id text, parent_id text, action text, changed text[])`,
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  `CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$`,
  `CREATE FUNCTION app_changed_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(p ORDER BY array_position(ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages'], p)), '{}')
    FROM (SELECT DISTINCT unnest(a || b) AS p) parts
  $$`,
  `CREATE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    WITH logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, parent_id, action, changed)
        SELECT r.company_id, r.object, r.object_id, max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM unnest(rows) r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
        GROUP BY r.company_id, r.object, r.object_id
        ON CONFLICT ON CONSTRAINT change_log_transaction_object_key DO UPDATE SET
          action = CASE WHEN EXCLUDED.action = 'deleted' THEN 'deleted' WHEN c.action = 'created' THEN 'created' ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'deleted' OR c.action = 'created' OR EXCLUDED.action = 'created' THEN '{}'::text[]
            ELSE app_changed_union(c.changed, EXCLUDED.changed) END
        -- Nothing to say: already deleted; created and now completed (a bulk insert's parts); the parts already named.
        WHERE c.action <> 'deleted' AND NOT (c.action = 'created' AND EXCLUDED.action = 'updated')
          AND NOT (c.action = 'updated' AND EXCLUDED.action = 'updated' AND EXCLUDED.changed <@ c.changed)
        RETURNING c.company_id, c.object, c.object_id, c.action
    )
    -- A change to a record's parts moves the record's updated_at: only where an entry was written
    -- or widened (not for the parts of a record created in this transaction); its own changes
    -- already did (app_touch_recording), which the condition on updated_at recognises.
    UPDATE recordings r SET updated_at = now()
      FROM logged x
      WHERE x.object IN ('meeting', 'call') AND x.action = 'updated'
        AND r.company_id = x.company_id AND r.public_id = x.object_id AND r.updated_at < now();
  END $$`,
  `CREATE FUNCTION app_touch_recording() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF (to_jsonb(NEW) - 'updated_at') IS DISTINCT FROM (to_jsonb(OLD) - 'updated_at') THEN
      NEW.updated_at := greatest(now(), OLD.updated_at);
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER recordings_touch BEFORE UPDATE ON recordings FOR EACH ROW EXECUTE FUNCTION app_touch_recording()`,
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
  `REVOKE ALL ON FUNCTION app_compact_changes(timestamptz, integer) FROM PUBLIC`,
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
  `CREATE TRIGGER recordings_changes_insert AFTER INSERT ON recordings
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings()`,
  `CREATE TRIGGER recordings_changes_update AFTER UPDATE ON recordings
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings()`,
  `CREATE TRIGGER recordings_changes_delete AFTER DELETE ON recordings
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recordings()`,
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
  `CREATE TRIGGER transcripts_changes_insert AFTER INSERT ON transcripts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts()`,
  `CREATE TRIGGER transcripts_changes_update AFTER UPDATE ON transcripts
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts()`,
  `CREATE TRIGGER transcripts_changes_delete AFTER DELETE ON transcripts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_transcripts()`,
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
  `CREATE TRIGGER recording_evaluations_changes_insert AFTER INSERT ON recording_evaluations
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations()`,
  `CREATE TRIGGER recording_evaluations_changes_update AFTER UPDATE ON recording_evaluations
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations()`,
  `CREATE TRIGGER recording_evaluations_changes_delete AFTER DELETE ON recording_evaluations
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_evaluations()`,
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
  `CREATE TRIGGER recording_answers_changes_insert AFTER INSERT ON recording_answers
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers()`,
  `CREATE TRIGGER recording_answers_changes_update AFTER UPDATE ON recording_answers
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers()`,
  `CREATE TRIGGER recording_answers_changes_delete AFTER DELETE ON recording_answers
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_answers()`,
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
  `CREATE TRIGGER recording_tags_changes_insert AFTER INSERT ON recording_tags
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags()`,
  `CREATE TRIGGER recording_tags_changes_update AFTER UPDATE ON recording_tags
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags()`,
  `CREATE TRIGGER recording_tags_changes_delete AFTER DELETE ON recording_tags
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_tags()`,
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
  `CREATE TRIGGER recording_competitors_changes_insert AFTER INSERT ON recording_competitors
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors()`,
  `CREATE TRIGGER recording_competitors_changes_update AFTER UPDATE ON recording_competitors
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors()`,
  `CREATE TRIGGER recording_competitors_changes_delete AFTER DELETE ON recording_competitors
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_competitors()`,
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
  `CREATE TRIGGER recording_accounts_changes_insert AFTER INSERT ON recording_accounts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts()`,
  `CREATE TRIGGER recording_accounts_changes_update AFTER UPDATE ON recording_accounts
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts()`,
  `CREATE TRIGGER recording_accounts_changes_delete AFTER DELETE ON recording_accounts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_accounts()`,
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
  `CREATE TRIGGER recording_enablements_changes_insert AFTER INSERT ON recording_enablements
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements()`,
  `CREATE TRIGGER recording_enablements_changes_update AFTER UPDATE ON recording_enablements
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements()`,
  `CREATE TRIGGER recording_enablements_changes_delete AFTER DELETE ON recording_enablements
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_enablements()`,
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
  `CREATE TRIGGER recording_speaking_durations_changes_insert AFTER INSERT ON recording_speaking_durations
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations()`,
  `CREATE TRIGGER recording_speaking_durations_changes_update AFTER UPDATE ON recording_speaking_durations
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations()`,
  `CREATE TRIGGER recording_speaking_durations_changes_delete AFTER DELETE ON recording_speaking_durations
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_speaking_durations()`,
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
  `CREATE TRIGGER recording_skill_scores_changes_insert AFTER INSERT ON recording_skill_scores
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores()`,
  `CREATE TRIGGER recording_skill_scores_changes_update AFTER UPDATE ON recording_skill_scores
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores()`,
  `CREATE TRIGGER recording_skill_scores_changes_delete AFTER DELETE ON recording_skill_scores
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_recording_skill_scores()`,
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
  `CREATE TRIGGER template_questions_changes_insert AFTER INSERT ON template_questions
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions()`,
  `CREATE TRIGGER template_questions_changes_update AFTER UPDATE ON template_questions
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions()`,
  `CREATE TRIGGER template_questions_changes_delete AFTER DELETE ON template_questions
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_template_questions()`,
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
  `CREATE TRIGGER templates_changes_insert AFTER INSERT ON templates
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates()`,
  `CREATE TRIGGER templates_changes_update AFTER UPDATE ON templates
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates()`,
  `CREATE TRIGGER templates_changes_delete AFTER DELETE ON templates
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates()`,
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
  `CREATE TRIGGER users_changes_insert AFTER INSERT ON users
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users()`,
  `CREATE TRIGGER users_changes_update AFTER UPDATE ON users
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users()`,
  `CREATE TRIGGER users_changes_delete AFTER DELETE ON users
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users()`,
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
  `CREATE TRIGGER team_memberships_changes_insert AFTER INSERT ON team_memberships
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships()`,
  `CREATE TRIGGER team_memberships_changes_update AFTER UPDATE ON team_memberships
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships()`,
  `CREATE TRIGGER team_memberships_changes_delete AFTER DELETE ON team_memberships
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_team_memberships()`,
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
  `CREATE TRIGGER teams_changes_insert AFTER INSERT ON teams
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams()`,
  `CREATE TRIGGER teams_changes_update AFTER UPDATE ON teams
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams()`,
  `CREATE TRIGGER teams_changes_delete AFTER DELETE ON teams
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams()`,
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
  `CREATE TRIGGER tags_changes_insert AFTER INSERT ON tags
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags()`,
  `CREATE TRIGGER tags_changes_update AFTER UPDATE ON tags
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags()`,
  `CREATE TRIGGER tags_changes_delete AFTER DELETE ON tags
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags()`,
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
  `CREATE TRIGGER competitors_changes_insert AFTER INSERT ON competitors
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors()`,
  `CREATE TRIGGER competitors_changes_update AFTER UPDATE ON competitors
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors()`,
  `CREATE TRIGGER competitors_changes_delete AFTER DELETE ON competitors
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors()`,
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
  `CREATE TRIGGER skills_changes_insert AFTER INSERT ON skills
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills()`,
  `CREATE TRIGGER skills_changes_update AFTER UPDATE ON skills
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills()`,
  `CREATE TRIGGER skills_changes_delete AFTER DELETE ON skills
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills()`,
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
  `CREATE TRIGGER accounts_changes_insert AFTER INSERT ON accounts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts()`,
  `CREATE TRIGGER accounts_changes_update AFTER UPDATE ON accounts
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts()`,
  `CREATE TRIGGER accounts_changes_delete AFTER DELETE ON accounts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts()`,
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
  `CREATE TRIGGER mailboxes_changes_insert AFTER INSERT ON mailboxes
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
  `CREATE TRIGGER mailboxes_changes_update AFTER UPDATE ON mailboxes
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
  `CREATE TRIGGER mailboxes_changes_delete AFTER DELETE ON mailboxes
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
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
  `CREATE TRIGGER email_conversations_changes_insert AFTER INSERT ON email_conversations
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations()`,
  `CREATE TRIGGER email_conversations_changes_update AFTER UPDATE ON email_conversations
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations()`,
  `CREATE TRIGGER email_conversations_changes_delete AFTER DELETE ON email_conversations
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversations()`,
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
  `CREATE TRIGGER email_conversation_mailboxes_changes_insert AFTER INSERT ON email_conversation_mailboxes
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes()`,
  `CREATE TRIGGER email_conversation_mailboxes_changes_update AFTER UPDATE ON email_conversation_mailboxes
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes()`,
  `CREATE TRIGGER email_conversation_mailboxes_changes_delete AFTER DELETE ON email_conversation_mailboxes
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_mailboxes()`,
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
  `CREATE TRIGGER email_participants_changes_insert AFTER INSERT ON email_participants
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants()`,
  `CREATE TRIGGER email_participants_changes_update AFTER UPDATE ON email_participants
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants()`,
  `CREATE TRIGGER email_participants_changes_delete AFTER DELETE ON email_participants
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_participants()`,
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
  `CREATE TRIGGER email_conversation_accounts_changes_insert AFTER INSERT ON email_conversation_accounts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts()`,
  `CREATE TRIGGER email_conversation_accounts_changes_update AFTER UPDATE ON email_conversation_accounts
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts()`,
  `CREATE TRIGGER email_conversation_accounts_changes_delete AFTER DELETE ON email_conversation_accounts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_conversation_accounts()`,
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
  `CREATE TRIGGER email_messages_changes_insert AFTER INSERT ON email_messages
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages()`,
  `CREATE TRIGGER email_messages_changes_update AFTER UPDATE ON email_messages
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages()`,
  `CREATE TRIGGER email_messages_changes_delete AFTER DELETE ON email_messages
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_email_messages()`,
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
  `CREATE TRIGGER chat_conversations_changes_insert AFTER INSERT ON chat_conversations
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations()`,
  `CREATE TRIGGER chat_conversations_changes_update AFTER UPDATE ON chat_conversations
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations()`,
  `CREATE TRIGGER chat_conversations_changes_delete AFTER DELETE ON chat_conversations
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversations()`,
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
  `CREATE TRIGGER chat_conversation_accounts_changes_insert AFTER INSERT ON chat_conversation_accounts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts()`,
  `CREATE TRIGGER chat_conversation_accounts_changes_update AFTER UPDATE ON chat_conversation_accounts
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts()`,
  `CREATE TRIGGER chat_conversation_accounts_changes_delete AFTER DELETE ON chat_conversation_accounts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_conversation_accounts()`,
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
  `CREATE TRIGGER chat_messages_changes_insert AFTER INSERT ON chat_messages
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages()`,
  `CREATE TRIGGER chat_messages_changes_update AFTER UPDATE ON chat_messages
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages()`,
  `CREATE TRIGGER chat_messages_changes_delete AFTER DELETE ON chat_messages
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_chat_messages()`,
  `INSERT INTO change_log (company_id, object, object_id, parent_id, action)
  SELECT company_id, kind, public_id, NULL, 'created' FROM recordings
  UNION ALL SELECT company_id, 'email', public_id, NULL, 'created' FROM email_conversations
  UNION ALL SELECT m.company_id, 'email_message', m.public_id, c.public_id, 'created'
    FROM email_messages m JOIN email_conversations c ON c.id = m.conversation_id
  UNION ALL SELECT company_id, 'chat', public_id, NULL, 'created' FROM chat_conversations
  UNION ALL SELECT m.company_id, 'chat_message', m.public_id, c.public_id, 'created'
    FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id`,
];

/** What `down` runs. */
const DOWN: string[] = [
  `DROP TRIGGER IF EXISTS recordings_changes_insert ON recordings`,
  `DROP TRIGGER IF EXISTS recordings_changes_update ON recordings`,
  `DROP TRIGGER IF EXISTS recordings_changes_delete ON recordings`,
  `DROP FUNCTION IF EXISTS app_changes_recordings()`,
  `DROP TRIGGER IF EXISTS transcripts_changes_insert ON transcripts`,
  `DROP TRIGGER IF EXISTS transcripts_changes_update ON transcripts`,
  `DROP TRIGGER IF EXISTS transcripts_changes_delete ON transcripts`,
  `DROP FUNCTION IF EXISTS app_changes_transcripts()`,
  `DROP TRIGGER IF EXISTS recording_evaluations_changes_insert ON recording_evaluations`,
  `DROP TRIGGER IF EXISTS recording_evaluations_changes_update ON recording_evaluations`,
  `DROP TRIGGER IF EXISTS recording_evaluations_changes_delete ON recording_evaluations`,
  `DROP FUNCTION IF EXISTS app_changes_recording_evaluations()`,
  `DROP TRIGGER IF EXISTS recording_answers_changes_insert ON recording_answers`,
  `DROP TRIGGER IF EXISTS recording_answers_changes_update ON recording_answers`,
  `DROP TRIGGER IF EXISTS recording_answers_changes_delete ON recording_answers`,
  `DROP FUNCTION IF EXISTS app_changes_recording_answers()`,
  `DROP TRIGGER IF EXISTS recording_tags_changes_insert ON recording_tags`,
  `DROP TRIGGER IF EXISTS recording_tags_changes_update ON recording_tags`,
  `DROP TRIGGER IF EXISTS recording_tags_changes_delete ON recording_tags`,
  `DROP FUNCTION IF EXISTS app_changes_recording_tags()`,
  `DROP TRIGGER IF EXISTS recording_competitors_changes_insert ON recording_competitors`,
  `DROP TRIGGER IF EXISTS recording_competitors_changes_update ON recording_competitors`,
  `DROP TRIGGER IF EXISTS recording_competitors_changes_delete ON recording_competitors`,
  `DROP FUNCTION IF EXISTS app_changes_recording_competitors()`,
  `DROP TRIGGER IF EXISTS recording_accounts_changes_insert ON recording_accounts`,
  `DROP TRIGGER IF EXISTS recording_accounts_changes_update ON recording_accounts`,
  `DROP TRIGGER IF EXISTS recording_accounts_changes_delete ON recording_accounts`,
  `DROP FUNCTION IF EXISTS app_changes_recording_accounts()`,
  `DROP TRIGGER IF EXISTS recording_enablements_changes_insert ON recording_enablements`,
  `DROP TRIGGER IF EXISTS recording_enablements_changes_update ON recording_enablements`,
  `DROP TRIGGER IF EXISTS recording_enablements_changes_delete ON recording_enablements`,
  `DROP FUNCTION IF EXISTS app_changes_recording_enablements()`,
  `DROP TRIGGER IF EXISTS recording_speaking_durations_changes_insert ON recording_speaking_durations`,
  `DROP TRIGGER IF EXISTS recording_speaking_durations_changes_update ON recording_speaking_durations`,
  `DROP TRIGGER IF EXISTS recording_speaking_durations_changes_delete ON recording_speaking_durations`,
  `DROP FUNCTION IF EXISTS app_changes_recording_speaking_durations()`,
  `DROP TRIGGER IF EXISTS recording_skill_scores_changes_insert ON recording_skill_scores`,
  `DROP TRIGGER IF EXISTS recording_skill_scores_changes_update ON recording_skill_scores`,
  `DROP TRIGGER IF EXISTS recording_skill_scores_changes_delete ON recording_skill_scores`,
  `DROP FUNCTION IF EXISTS app_changes_recording_skill_scores()`,
  `DROP TRIGGER IF EXISTS template_questions_changes_insert ON template_questions`,
  `DROP TRIGGER IF EXISTS template_questions_changes_update ON template_questions`,
  `DROP TRIGGER IF EXISTS template_questions_changes_delete ON template_questions`,
  `DROP FUNCTION IF EXISTS app_changes_template_questions()`,
  `DROP TRIGGER IF EXISTS templates_changes_insert ON templates`,
  `DROP TRIGGER IF EXISTS templates_changes_update ON templates`,
  `DROP TRIGGER IF EXISTS templates_changes_delete ON templates`,
  `DROP FUNCTION IF EXISTS app_changes_templates()`,
  `DROP TRIGGER IF EXISTS users_changes_insert ON users`,
  `DROP TRIGGER IF EXISTS users_changes_update ON users`,
  `DROP TRIGGER IF EXISTS users_changes_delete ON users`,
  `DROP FUNCTION IF EXISTS app_changes_users()`,
  `DROP TRIGGER IF EXISTS team_memberships_changes_insert ON team_memberships`,
  `DROP TRIGGER IF EXISTS team_memberships_changes_update ON team_memberships`,
  `DROP TRIGGER IF EXISTS team_memberships_changes_delete ON team_memberships`,
  `DROP FUNCTION IF EXISTS app_changes_team_memberships()`,
  `DROP TRIGGER IF EXISTS teams_changes_insert ON teams`,
  `DROP TRIGGER IF EXISTS teams_changes_update ON teams`,
  `DROP TRIGGER IF EXISTS teams_changes_delete ON teams`,
  `DROP FUNCTION IF EXISTS app_changes_teams()`,
  `DROP TRIGGER IF EXISTS tags_changes_insert ON tags`,
  `DROP TRIGGER IF EXISTS tags_changes_update ON tags`,
  `DROP TRIGGER IF EXISTS tags_changes_delete ON tags`,
  `DROP FUNCTION IF EXISTS app_changes_tags()`,
  `DROP TRIGGER IF EXISTS competitors_changes_insert ON competitors`,
  `DROP TRIGGER IF EXISTS competitors_changes_update ON competitors`,
  `DROP TRIGGER IF EXISTS competitors_changes_delete ON competitors`,
  `DROP FUNCTION IF EXISTS app_changes_competitors()`,
  `DROP TRIGGER IF EXISTS skills_changes_insert ON skills`,
  `DROP TRIGGER IF EXISTS skills_changes_update ON skills`,
  `DROP TRIGGER IF EXISTS skills_changes_delete ON skills`,
  `DROP FUNCTION IF EXISTS app_changes_skills()`,
  `DROP TRIGGER IF EXISTS accounts_changes_insert ON accounts`,
  `DROP TRIGGER IF EXISTS accounts_changes_update ON accounts`,
  `DROP TRIGGER IF EXISTS accounts_changes_delete ON accounts`,
  `DROP FUNCTION IF EXISTS app_changes_accounts()`,
  `DROP TRIGGER IF EXISTS mailboxes_changes_insert ON mailboxes`,
  `DROP TRIGGER IF EXISTS mailboxes_changes_update ON mailboxes`,
  `DROP TRIGGER IF EXISTS mailboxes_changes_delete ON mailboxes`,
  `DROP FUNCTION IF EXISTS app_changes_mailboxes()`,
  `DROP TRIGGER IF EXISTS email_conversations_changes_insert ON email_conversations`,
  `DROP TRIGGER IF EXISTS email_conversations_changes_update ON email_conversations`,
  `DROP TRIGGER IF EXISTS email_conversations_changes_delete ON email_conversations`,
  `DROP FUNCTION IF EXISTS app_changes_email_conversations()`,
  `DROP TRIGGER IF EXISTS email_conversation_mailboxes_changes_insert ON email_conversation_mailboxes`,
  `DROP TRIGGER IF EXISTS email_conversation_mailboxes_changes_update ON email_conversation_mailboxes`,
  `DROP TRIGGER IF EXISTS email_conversation_mailboxes_changes_delete ON email_conversation_mailboxes`,
  `DROP FUNCTION IF EXISTS app_changes_email_conversation_mailboxes()`,
  `DROP TRIGGER IF EXISTS email_participants_changes_insert ON email_participants`,
  `DROP TRIGGER IF EXISTS email_participants_changes_update ON email_participants`,
  `DROP TRIGGER IF EXISTS email_participants_changes_delete ON email_participants`,
  `DROP FUNCTION IF EXISTS app_changes_email_participants()`,
  `DROP TRIGGER IF EXISTS email_conversation_accounts_changes_insert ON email_conversation_accounts`,
  `DROP TRIGGER IF EXISTS email_conversation_accounts_changes_update ON email_conversation_accounts`,
  `DROP TRIGGER IF EXISTS email_conversation_accounts_changes_delete ON email_conversation_accounts`,
  `DROP FUNCTION IF EXISTS app_changes_email_conversation_accounts()`,
  `DROP TRIGGER IF EXISTS email_messages_changes_insert ON email_messages`,
  `DROP TRIGGER IF EXISTS email_messages_changes_update ON email_messages`,
  `DROP TRIGGER IF EXISTS email_messages_changes_delete ON email_messages`,
  `DROP FUNCTION IF EXISTS app_changes_email_messages()`,
  `DROP TRIGGER IF EXISTS chat_conversations_changes_insert ON chat_conversations`,
  `DROP TRIGGER IF EXISTS chat_conversations_changes_update ON chat_conversations`,
  `DROP TRIGGER IF EXISTS chat_conversations_changes_delete ON chat_conversations`,
  `DROP FUNCTION IF EXISTS app_changes_chat_conversations()`,
  `DROP TRIGGER IF EXISTS chat_conversation_accounts_changes_insert ON chat_conversation_accounts`,
  `DROP TRIGGER IF EXISTS chat_conversation_accounts_changes_update ON chat_conversation_accounts`,
  `DROP TRIGGER IF EXISTS chat_conversation_accounts_changes_delete ON chat_conversation_accounts`,
  `DROP FUNCTION IF EXISTS app_changes_chat_conversation_accounts()`,
  `DROP TRIGGER IF EXISTS chat_messages_changes_insert ON chat_messages`,
  `DROP TRIGGER IF EXISTS chat_messages_changes_update ON chat_messages`,
  `DROP TRIGGER IF EXISTS chat_messages_changes_delete ON chat_messages`,
  `DROP FUNCTION IF EXISTS app_changes_chat_messages()`,
  `DROP TRIGGER IF EXISTS recordings_touch ON recordings`,
  `DROP FUNCTION IF EXISTS app_touch_recording()`,
  `DROP FUNCTION IF EXISTS app_compact_changes(timestamptz, integer)`,
  `DROP FUNCTION IF EXISTS app_record_changes(change_row[])`,
  `DROP FUNCTION IF EXISTS app_changed_union(text[], text[])`,
  `DROP FUNCTION IF EXISTS app_created_here(bigint[])`,
  `DROP FUNCTION IF EXISTS app_current_xid()`,
  `DROP TABLE change_log`,
  `DROP TYPE change_row`,
];
