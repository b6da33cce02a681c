import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change capture at a cost a bulk writer hardly notices (`seed:volume` of 1,000,000 meetings
 * took 1.42× its time without the triggers). Measured with `pg_stat_statements` tracking the
 * triggers' statements, the cost had three parts, and each is cut here without changing an
 * entry the feed serves:
 *
 * 1. **Shared rows nothing references yet.** An INSERT into users, teams, templates, tags,
 *    competitors, skills, accounts or mailboxes looked for the records that show the new row
 *    (through link tables without an index on the shared side: a sequential scan per
 *    statement, 70 ms per account on a database of 600,000 meetings, seconds on a big one). A
 *    new row is shown by nothing: every object reaches these rows through a foreign key from a
 *    captured table (the catalog test checks it), so it starts showing one when that row is
 *    written, which its own trigger logs. A DELETE either cascades to such rows (logged by their
 *    triggers), sets their references to null (an update, logged) or is refused. These tables
 *    keep only their UPDATE trigger.
 * 2. **The parts of an object created in the same transaction.** Its `created` entry says "read
 *    it all", so its parts log nothing. The part triggers found that out per part table and
 *    record by joining the record and looking it up among the transaction's `created` entries.
 *    Now the insert trigger of recordings and conversations notes the ids it created, as an
 *    `int8multirange` (one range for a bulk insert) in a transaction-local setting, and the part
 *    triggers drop those rows from the transition table before any join. The previous check
 *    stays behind it for what the note cannot know (a part written in the same statement as
 *    its record, when the part's trigger happens to fire first). The note only ever skips work
 *    the `created` entry already covers; it is local to the transaction and carries its id, so
 *    nothing outlives it. (A writer that forged it could hide its own part changes; writers
 *    are trusted with the data itself anyway.)
 * 3. **The `created` entries themselves.** They were built into an array, unnested, grouped
 *    and merged; an insert's are now written straight from the transition table.
 * 4. **The log's indexes.** It kept two for an object's entries, `(company_id, xid, object,
 *    object_id)` for the merge and `(company_id, object, object_id, xid, seq)` for compaction;
 *    the second is keyed by random public ids, so every entry dirtied a random page of an index
 *    that outgrows the cache (measured: about a tenth of the seed's time). Entries now carry
 *    `object_key`, the id of the object's row (monotonic for new rows), and one unique index
 *    `(company_id, object, object_key, xid)` serves both, appended at its right edge by a bulk
 *    insert. Existing entries get their row's id; those of objects already removed get a
 *    negative key of their own (one per object), so compaction still tells them apart.
 *
 * The backfill and the index read and rewrite the whole log once, in the migration's transaction,
 * holding an exclusive lock on `change_log` until it commits: feed reads, the webhook dispatcher
 * and every logged write wait for it (3 minutes for 2.4 million entries in a lab cluster). Run it
 * before the rollout, like every migration, in a window sized to the log.
 *
 * Later migrations that replace a capture build its function with `leanFunctionOf` (rows of
 * seven fields); `captureFunctionOf` alone builds the six-field rows of the first definition.
 *
 * Frozen: the statements below are the literal SQL this migration runs, rendered once from the builders it used
 * (which no longer exist) and never to be edited again: a migration is history. Today's capture functions live in
 * src/changes/capture-sql.ts, and later migrations install them.
 */
export class LeanChangeCapture1765100000000 implements MigrationInterface {
  name = 'LeanChangeCapture1765100000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** The id of each entry's object row for the entries already logged (the row's id where it still exists, else a negative key of its own per removed object); run by `up`. */
export const KEY_BACKFILL: string[] = [
  `UPDATE change_log c SET object_key = o.id FROM recordings o
      WHERE c.object_key IS NULL AND c.object IN ('meeting', 'call') AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  `UPDATE change_log c SET object_key = o.id FROM email_conversations o
      WHERE c.object_key IS NULL AND c.object = 'email' AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  `UPDATE change_log c SET object_key = o.id FROM email_messages o
      WHERE c.object_key IS NULL AND c.object = 'email_message' AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  `UPDATE change_log c SET object_key = o.id FROM chat_conversations o
      WHERE c.object_key IS NULL AND c.object = 'chat' AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  `UPDATE change_log c SET object_key = o.id FROM chat_messages o
      WHERE c.object_key IS NULL AND c.object = 'chat_message' AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  `UPDATE change_log c SET object_key = -g.n
    FROM (SELECT company_id, object, object_id, row_number() OVER (ORDER BY company_id, object, object_id) AS n
          FROM (SELECT DISTINCT company_id, object, object_id FROM change_log WHERE object_key IS NULL) removed) g
    WHERE c.object_key IS NULL AND c.company_id = g.company_id AND c.object = g.object AND c.object_id = g.object_id`,
];

/** What `up` runs. */
const UP: string[] = [
  `ALTER TABLE change_log ADD COLUMN object_key bigint`,
  ...KEY_BACKFILL,
  `ALTER TABLE change_log ALTER COLUMN object_key SET NOT NULL`,
  `ALTER TYPE change_row ADD ATTRIBUTE object_key bigint`,
  `CREATE UNIQUE INDEX change_log_object_transaction_key ON change_log (company_id, object, object_key, xid)`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_object_transaction_key UNIQUE USING INDEX change_log_object_transaction_key`,
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
          action = CASE WHEN EXCLUDED.action = 'deleted' THEN 'deleted' WHEN c.action = 'created' THEN 'created' ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'deleted' OR c.action = 'created' OR EXCLUDED.action = 'created' THEN '{}'::text[]
            ELSE app_changed_union(c.changed, EXCLUDED.changed) END
        -- Nothing to say: already deleted; created and now completed (a bulk insert's parts); the parts already named.
        WHERE c.action <> 'deleted' AND NOT (c.action = 'created' AND EXCLUDED.action = 'updated')
          AND NOT (c.action = 'updated' AND EXCLUDED.action = 'updated' AND EXCLUDED.changed <@ c.changed)
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
    )
    UPDATE change_log c SET
      action = CASE WHEN s.action = 'deleted' OR f.deleted THEN 'deleted' WHEN s.action = 'created' OR f.created THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN s.action = 'deleted' OR f.deleted OR s.action = 'created' OR f.created THEN '{}'::text[]
        ELSE app_changed_union(s.changed, f.changed) END
    FROM survivors s JOIN folded f USING (company_id, object, object_key)
    WHERE c.company_id = s.company_id AND c.xid = s.xid AND c.seq = s.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`,
  `ALTER TABLE change_log DROP CONSTRAINT change_log_transaction_object_key`,
  `DROP INDEX change_log_object_idx`,
  `CREATE FUNCTION app_created_ids(tbl text) RETURNS int8multirange LANGUAGE plpgsql STABLE AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    noted text := current_setting('app.created_' || tbl, true);
  BEGIN
    IF starts_with(noted, mine) THEN RETURN substr(noted, length(mine) + 1)::int8multirange; END IF;
    RETURN '{}'::int8multirange;
  END $$`,
  `CREATE FUNCTION app_note_created(tbl text, ids int8multirange) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF ids IS NULL OR isempty(ids) THEN RETURN; END IF;
    PERFORM set_config('app.created_' || tbl, pg_current_xact_id()::text || ':' || (ids + app_created_ids(tbl))::text, true);
  END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recordings() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_note_created('recordings', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
        INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created' FROM new_rows t
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, t.kind, t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
           CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript'] ELSE ARRAY['details'] END
         , n.id)::change_row
         FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (to_jsonb(n) - 'updated_at') IS DISTINCT FROM (to_jsonb(o) - 'updated_at') AND NOT n.id <@ (SELECT app_created_ids('recordings'))));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
           CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript'] ELSE ARRAY['details'] END
         , n.id)::change_row
         FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (to_jsonb(n) - 'updated_at') IS DISTINCT FROM (to_jsonb(o) - 'updated_at') AND NOT n.id <@ (SELECT app_created_ids('recordings')))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_transcripts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'transcript']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_evaluations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'evaluation']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_answers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_tags() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_enablements() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_speaking_durations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_recording_skill_scores() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM new_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? r.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM old_rows WHERE NOT recording_id <@ (SELECT app_created_ids('recordings'))) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE NOT (r.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? r.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_template_questions() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_templates() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_users() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_note_created('users', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM new_rows) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, id FROM old_rows) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
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
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM new_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT company_id, user_id AS id FROM old_rows WHERE NOT user_id <@ (SELECT app_created_ids('users'))) u))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_teams() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)));
      ELSE
        PERFORM app_record_changes(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)) u)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'], r.id)::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM old_rows)) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'], c.id)::change_row
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
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_tags l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.tag_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_competitors l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.competitor_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_skills() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_skill_scores l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.skill_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details']::text[], r.id)::change_row
                 FROM recording_accounts l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_accounts l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows)
 UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM chat_conversation_accounts l JOIN chat_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.account_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM old_rows)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM new_rows)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
                 FROM email_conversation_mailboxes l JOIN email_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.mailbox_id) IN (SELECT company_id, id FROM old_rows))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_note_created('email_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
        INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) SELECT t.company_id, 'email', t.public_id, t.id, NULL, 'created' FROM new_rows t
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'updated', ARRAY['details']::text[], t.id)::change_row FROM new_rows t WHERE NOT id <@ (SELECT app_created_ids('email_conversations'))));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'email', t.public_id, NULL, 'updated', ARRAY['details']::text[], t.id)::change_row FROM old_rows t WHERE NOT id <@ (SELECT app_created_ids('email_conversations')))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_mailboxes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_participants() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
    JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_email_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) SELECT t.company_id, 'email_message', t.public_id, t.id, c.public_id, 'created'
          FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'created' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row
      FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'deleted' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[], t.id)::change_row
      FROM new_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'email_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[], t.id)::change_row
      FROM old_rows t JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('email_conversations'))) t
      JOIN email_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversations() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_note_created('chat_conversations', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));
        INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) SELECT t.company_id, 'chat', t.public_id, t.id, NULL, 'created' FROM new_rows t
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'deleted', '{}'::text[], t.id)::change_row FROM old_rows t));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'updated', ARRAY['details']::text[], t.id)::change_row FROM new_rows t WHERE NOT id <@ (SELECT app_created_ids('chat_conversations'))));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'chat', t.public_id, NULL, 'updated', ARRAY['details']::text[], t.id)::change_row FROM old_rows t WHERE NOT id <@ (SELECT app_created_ids('chat_conversations')))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_conversation_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details']::text[], c.id)::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
    JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE OR REPLACE FUNCTION app_changes_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) SELECT t.company_id, 'chat_message', t.public_id, t.id, c.public_id, 'created'
          FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';
        PERFORM app_record_changes(ARRAY(SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'created' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'deleted', '{}'::text[], t.id)::change_row
      FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'deleted' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id)));
      ELSE
        PERFORM app_record_changes(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[], t.id)::change_row
      FROM new_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM new_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM new_rows))) ? c.public_id)));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(SELECT ROW(t.company_id, 'chat_message', t.public_id, c.public_id, 'updated', ARRAY['details']::text[], t.id)::change_row
      FROM old_rows t JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['messages'], c.id)::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM old_rows WHERE NOT conversation_id <@ (SELECT app_created_ids('chat_conversations'))) t
      JOIN chat_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE 'updated' <> 'updated' AND NOT (c.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM old_rows))) ? c.public_id))) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`,
  `DROP TRIGGER users_changes_delete ON users`,
  `DROP TRIGGER teams_changes_insert ON teams`,
  `DROP TRIGGER teams_changes_delete ON teams`,
  `DROP TRIGGER templates_changes_insert ON templates`,
  `DROP TRIGGER templates_changes_delete ON templates`,
  `DROP TRIGGER tags_changes_insert ON tags`,
  `DROP TRIGGER tags_changes_delete ON tags`,
  `DROP TRIGGER competitors_changes_insert ON competitors`,
  `DROP TRIGGER competitors_changes_delete ON competitors`,
  `DROP TRIGGER skills_changes_insert ON skills`,
  `DROP TRIGGER skills_changes_delete ON skills`,
  `DROP TRIGGER accounts_changes_insert ON accounts`,
  `DROP TRIGGER accounts_changes_delete ON accounts`,
  `DROP TRIGGER mailboxes_changes_insert ON mailboxes`,
  `DROP TRIGGER mailboxes_changes_delete ON mailboxes`,
];

/** What `down` runs. */
const DOWN: string[] = [
  `CREATE TRIGGER templates_changes_insert AFTER INSERT ON templates
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates()`,
  `CREATE TRIGGER templates_changes_delete AFTER DELETE ON templates
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_templates()`,
  `CREATE TRIGGER users_changes_delete AFTER DELETE ON users
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_users()`,
  `CREATE TRIGGER teams_changes_insert AFTER INSERT ON teams
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams()`,
  `CREATE TRIGGER teams_changes_delete AFTER DELETE ON teams
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_teams()`,
  `CREATE TRIGGER tags_changes_insert AFTER INSERT ON tags
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags()`,
  `CREATE TRIGGER tags_changes_delete AFTER DELETE ON tags
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_tags()`,
  `CREATE TRIGGER competitors_changes_insert AFTER INSERT ON competitors
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors()`,
  `CREATE TRIGGER competitors_changes_delete AFTER DELETE ON competitors
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_competitors()`,
  `CREATE TRIGGER skills_changes_insert AFTER INSERT ON skills
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills()`,
  `CREATE TRIGGER skills_changes_delete AFTER DELETE ON skills
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_skills()`,
  `CREATE TRIGGER accounts_changes_insert AFTER INSERT ON accounts
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts()`,
  `CREATE TRIGGER accounts_changes_delete AFTER DELETE ON accounts
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_accounts()`,
  `CREATE TRIGGER mailboxes_changes_insert AFTER INSERT ON mailboxes
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
  `CREATE TRIGGER mailboxes_changes_delete AFTER DELETE ON mailboxes
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_changes_mailboxes()`,
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
  `DROP FUNCTION app_note_created(text, int8multirange)`,
  `DROP FUNCTION app_created_ids(text)`,
  `CREATE INDEX change_log_object_idx ON change_log (company_id, object, object_id, xid, seq)`,
  `ALTER TABLE change_log ADD CONSTRAINT change_log_transaction_object_key UNIQUE (company_id, xid, object, object_id)`,
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
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
  `ALTER TABLE change_log DROP CONSTRAINT change_log_object_transaction_key`,
  `ALTER TYPE change_row DROP ATTRIBUTE object_key`,
  `ALTER TABLE change_log DROP COLUMN object_key`,
];
