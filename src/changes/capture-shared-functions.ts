/**
 * The capture's functions that no one table's trigger owns: the ids a transaction created, the
 * epochs, the one entry per object and transaction (app_record_changes), the refusals, the
 * compaction of the log and the horizon marks. Literal SQL, as capture.sql shows it.
 */
import { EPOCH } from './capture-builders';

/** The objects of the feed and the parts a client re-reads. */
const PARTS_ORDER = `ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages']`;

/** The functions every trigger uses, in the order they are installed. */
export const SHARED_FUNCTIONS: string[] = [
  `CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$`,
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND object = ANY (ARRAY['meeting', 'call', 'email', 'chat'])
        AND epoch = app_live_change_epoch() AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  // The ids a transaction created in a table, as `<xid>:<int8multirange>` in `app.created_<table>`.
  `CREATE OR REPLACE FUNCTION app_created_ids(tbl text) RETURNS int8multirange LANGUAGE plpgsql STABLE AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    noted text := current_setting('app.created_' || tbl, true);
  BEGIN
    IF starts_with(noted, mine) THEN RETURN substr(noted, length(mine) + 1)::int8multirange; END IF;
    RETURN '{}'::int8multirange;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_note_created(tbl text, ids int8multirange) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF ids IS NULL OR isempty(ids) THEN RETURN; END IF;
    PERFORM set_config('app.created_' || tbl, pg_current_xact_id()::text || ':' || (ids + app_created_ids(tbl))::text, true);
  END $$`,
  /*
   * Epochs. The feed orders entries by (epoch, xid, seq) and serves an entry once its
   * transaction can no longer be running: an older epoch, or an xid below the horizon. An epoch
   * is one life of the server, and a life ends whenever the transaction counter can go back: a
   * restart (the postmaster's start time changes), a crash (crash recovery empties the unlogged
   * `change_epoch_life`; it may hand out again ids whose WAL never reached the disk), a
   * promotion or a point-in-time recovery (both start with unlogged tables empty), a restore
   * into another cluster (another start time). A new life's number is at least the seconds since
   * 2020 (and above every recorded one), so it also sorts after any epoch a lost timeline may
   * have issued that the restored `change_epochs` does not know. Writers record it through
   * app_record_change_epoch (SECURITY DEFINER; the service does at start and every minute, so a
   * writer seldom has to) and app_change_epoch caches it for their transaction; readers
   * (app_live_change_epoch) write nothing: the recorded life, or the lowest number the first
   * writer of this life can record.
   */
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
  // Unrecorded: the lowest number this life can get. Every recorded epoch is then final, and a
  // position (max + 1, horizon, 0) lies before any entry of this life whatever number its first
  // writer records (never lower), with no reliance on the clock.
  // On a hot standby (in recovery) the unlogged life cannot be read, nor is it the primary's:
  // the live epoch is then the newest recorded one. An entry of a newer epoch commits with or
  // after that epoch's row, so a standby that replayed the entry knows the epoch; and taking the
  // newest recorded epoch as live when the primary's life is not recorded yet only holds back that
  // dead epoch's entries at or above the horizon until it is (never serves one early). plpgsql, so
  // that the branch not taken is never planned: planning a read of an unlogged table fails in recovery.
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE plpgsql STABLE AS $$
  BEGIN
    IF pg_is_in_recovery() THEN
      RETURN (SELECT coalesce(max(e.epoch), 0) FROM change_epochs e);
    END IF;
    RETURN coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e));
  END $$`,
  // The parts to re-read, in the order the API lists them.
  `CREATE OR REPLACE FUNCTION app_changed_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(p ORDER BY array_position(${PARTS_ORDER}, p)), '{}')
    FROM (SELECT DISTINCT unnest(a || b) AS p) parts
  $$`,
  /*
   * One entry per object and transaction. Rows of one statement for one object merge first
   * (deleted, else created, else the union of the parts); then the entry the transaction
   * already holds: the newer of `created` and `deleted` wins (within one transaction only a
   * record moved back to the route it left goes from deleted to created), an `updated` adds its
   * parts to an `updated`, and the entry names the object's parent as it is now (a moved message).
   */
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
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, ${EPOCH}, max(r.parent_id),
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
  // A real change to a record moves its updated_at (never backwards); an update of updated_at alone keeps the value written.
  `CREATE OR REPLACE FUNCTION app_touch_recording() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF (to_jsonb(NEW) - 'updated_at') IS DISTINCT FROM (to_jsonb(OLD) - 'updated_at') THEN
      NEW.updated_at := greatest(now(), OLD.updated_at);
    END IF;
    RETURN NEW;
  END $$`,
  // A write that changes how shared rows are shown must see every record attached to them when it
  // looks for what shows them: only a READ COMMITTED statement that waited for the attaching
  // transaction does (shared-rows.ts). Older snapshots are refused, not silently wrong.
  `CREATE OR REPLACE FUNCTION app_require_read_committed(tbl text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'a change to % is captured at READ COMMITTED only', tbl
        USING ERRCODE = 'feature_not_supported',
          HINT = 'It changes how other rows are shown; at ' || upper(current_setting('transaction_isolation')) || ' its snapshot cannot see a record attached to them meanwhile. Run it at READ COMMITTED (the default).';
    END IF;
  END $$`,
  // TRUNCATE fires no trigger with rows, so nothing could say what it removed: refused.
  `CREATE OR REPLACE FUNCTION app_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'TRUNCATE of % is not captured by the change feed', TG_TABLE_NAME
      USING ERRCODE = 'feature_not_supported', HINT = 'Delete the rows instead (DELETE FROM ...): every delete is captured.';
  END $$`,
];

/**
 * An object's entries older than the cutoff merge into its newest, in batches, one compactor at
 * a time. An object is its kind, row and public id: a record that changed kind and took an id of
 * its new kind, then came back, is two objects of one row (the first one's `deleted` stays). The folded action: `deleted` when any of them says so and the object is not shown now
 * (an id is never reused, so a removed object stays removed even when an older-started
 * transaction's `updated` sorts after its deletion); `created` (read it all) when one of them
 * was created or deleted and the object is shown now (a record moved back to a route); else the
 * union of the parts. The merged entry names the object's newest parent.
 */
export const COMPACTION = `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
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
  END $$`;

/**
 * A horizon mark: at `marked_at`, every transaction of an earlier epoch, and of `epoch` below
 * `horizon`, had finished. Entries are
 * ordered by transaction id, not by commit time (`committed_at` is when the writing transaction
 * began), so "the changes committed after T" is a position, not a filter: the horizon of the
 * latest mark at or before T. A transaction that commits after T cannot be below it (it would
 * have finished by the mark), so reading from there yields every change committed after T, at
 * least once (and some committed between the mark and T). Marks are taken by the service every
 * minute; past a day one an hour is kept.
 */
export const HORIZON_MARK = `CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
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
  END $$`;
