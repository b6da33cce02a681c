import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-28 (rendered by
 * `npm run capture:render -- --migration KindIds`): the literal statements, never edited again.
 *
 * What changed: a record that changes kind takes an id of its new kind (a call is served under a
 * call id only), and the capture follows: an entry logged for a record reads its id again with
 * its kind, after locking its document (a part written while the record changed kind named the
 * old id, found by the interleaving machine); compaction merges the entries of one object, its
 * kind, row and id (a meeting that was made a call and a meeting again with a new id stays
 * deleted under its first id); a second change of kind with a new id in one transaction is
 * refused (one entry per object and transaction could not say both).
 */
export class KindIds1766600000001 implements MigrationInterface {
  name = 'KindIds1766600000001';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
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
  END $$`,
];

/** The capture before this migration. */
const DOWN: string[] = [
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
];
