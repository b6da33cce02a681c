import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs `app_audit_events` of src/audit/audit-read-sql.ts as it was on 2026-11-28: the literal
 * statements, never edited again.
 *
 * What changed (issue #48): a filter no index serves (`route`, `status`) was checked in the
 * statement's WHERE, so a rare one (`?resource_id=<a record read 300,000 times>&status=5xx`) read
 * months of rows for one page and ran into the reader's 10 s timeout, holding one of its
 * connections. The function takes a bound on the rows it examines (`p_scan`, AUDIT_SCAN_ROWS):
 * those filters are judged on each row examined, and when the bound is spent before the page
 * fills it ends with one row that is not an event (`scan_end`), the position of the last row
 * examined, from which the next page continues. A new argument and a new column: the old
 * signature is dropped (the API role's EXECUTE is granted again by `migration:run`).
 *
 * The trail gains `attempts` (default 1): failed authentication is recorded once per address,
 * reason and window, the row standing for that many requests (src/audit/audit-failures.ts), and
 * the function returns it.
 *
 * No new index: with the bound, every read is at most AUDIT_SCAN_ROWS rows of an index already
 * there (`audit_events_company_time_idx`, `audit_events_company_client_idx`,
 * `audit_event_resources_lookup_idx`), measured in test/e2e/audit-events.e2e-spec.ts.
 */
export class AuditReadBounded1766700000005 implements MigrationInterface {
  name = 'AuditReadBounded1766700000005';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

const UP: string[] = [
  `ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 1`,
  `DROP FUNCTION IF EXISTS app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer)`,
  `CREATE OR REPLACE FUNCTION app_audit_events(
    p_client text, p_route text, p_status_min integer, p_status_max integer, p_resource text,
    p_after timestamptz, p_before timestamptz, p_at timestamptz, p_id bigint, p_limit integer, p_scan integer)
  RETURNS TABLE (id bigint, occurred_at timestamptz, request_id text, client text, address text, method text, route text,
    path_params jsonb, query jsonb, status integer, resource_ids jsonb, truncated boolean, attempts integer, scan_end boolean)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  -- Every statement here reads one index range in order and stops at the page: never a bitmap of
  -- all the month's matches sorted afterwards, which the planner may prefer for a range it
  -- underestimates (a record read thousands of times, a partition not yet vacuumed).
  SET enable_sort = off SET enable_bitmapscan = off
  -- The trail's partitions are UTC months: the month arithmetic below is done in UTC whatever the
  -- session's time zone (a month added to a timestamptz is a calendar month of the session's zone).
  SET TimeZone = 'UTC' AS $$
DECLARE
  v_company text := nullif(current_setting('app.audit_company', true), '');
  v_hit text := 'true';
  v_at timestamptz := coalesce(p_at, 'infinity');
  v_id bigint := coalesce(p_id, 9223372036854775807);
  -- Rows of the walked index a call may examine (p_scan; NULL: no bound, for the owner's CLI).
  v_scan bigint := coalesce(p_scan, 9223372036854775807);
  v_examined bigint := 0;
  v_found integer := 0;
  v_batch bigint;
  v_read bigint;
  v_row record;
  v_top timestamptz;
  v_bottom timestamptz;
  v_month timestamptz;
BEGIN
  IF v_company IS NULL THEN
    RAISE EXCEPTION 'app_audit_events reads one company''s trail: set app.audit_company in the transaction' USING ERRCODE = '42501';
  END IF;
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 1000 THEN
    RAISE EXCEPTION 'app_audit_events: limit % is not from 1 to 1000', p_limit USING ERRCODE = '22023';
  END IF;
  IF p_scan IS NOT NULL AND p_scan < 1 THEN
    RAISE EXCEPTION 'app_audit_events: scan bound % is not positive', p_scan USING ERRCODE = '22023';
  END IF;
  -- The months to read, newest first: from the newest matching row (or the position, or the window's
  -- end) down to the oldest (or the window's start). Each bound is one probe of an index per month.
  -- (One statement per shape: a statement whose plan is kept must not depend on which filters are set.)
  IF p_resource IS NULL AND p_client IS NULL THEN
    SELECT max(e.occurred_at), min(e.occurred_at) INTO v_top, v_bottom FROM audit_events e WHERE e.company = v_company;
  ELSIF p_resource IS NULL THEN
    SELECT max(e.occurred_at), min(e.occurred_at) INTO v_top, v_bottom FROM audit_events e
      WHERE e.company = v_company AND e.client = p_client;
  ELSE
    SELECT max(x.occurred_at), min(x.occurred_at) INTO v_top, v_bottom FROM audit_event_resources x
      WHERE x.company = v_company AND x.resource_id = p_resource;
  END IF;
  IF v_top IS NULL THEN RETURN; END IF;
  v_top := least(v_top, v_at, p_before);
  v_bottom := greatest(v_bottom, p_after);
  -- The filters no index serves (route, status) are judged on each row examined, never in the
  -- statement's WHERE: a rare one must not make the walk read the month to its start.
  IF p_route IS NOT NULL THEN v_hit := v_hit || ' AND e.route = $3'; END IF;
  IF p_status_min IS NOT NULL THEN v_hit := v_hit || ' AND e.status BETWEEN $4 AND $5'; END IF;
  -- Month by month (a partition each: every statement is planned for its month's values, so it reads
  -- that partition's index in order), at most the rows the scan bound has left. The trail's
  -- partitions are UTC months.
  v_month := date_trunc('month', v_top AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  WHILE v_month + interval '1 month' > v_bottom LOOP
    v_read := 0;
    v_batch := v_scan - v_examined;
    -- The rows the bound has left of the month's index range, from the position, newest first: the
    -- company's (or the client's: its own index) events, or "who read this record?": the record's
    -- index rows, each joined to its event by key. Each row says whether it passes the filters.
    FOR v_row IN EXECUTE CASE WHEN p_resource IS NULL THEN
        'SELECT e.id AS at_id, e.occurred_at AS at, e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route, e.path_params,
           e.query, e.status, e.resource_ids, e.truncated, e.attempts, (' || v_hit || ') AS hit
         FROM audit_events e
         WHERE e.company = $1 AND e.occurred_at >= $6 AND e.occurred_at < $7 AND e.occurred_at > $8 AND e.occurred_at < $9
           AND (e.occurred_at, e.id) < ($10, $11)' || CASE WHEN p_client IS NULL THEN '' ELSE ' AND e.client = $2' END || '
         ORDER BY e.occurred_at DESC, e.id DESC LIMIT $12'
      ELSE
        'SELECT x.event_id AS at_id, x.occurred_at AS at, e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route,
           e.path_params, e.query, e.status, e.resource_ids, e.truncated, e.attempts,
           (e.id IS NOT NULL AND e.company = $1 AND ($2::text IS NULL OR e.client = $2) AND ' || v_hit || ') AS hit
         FROM (SELECT x.occurred_at, x.event_id FROM audit_event_resources x
               WHERE x.company = $1 AND x.resource_id = $13 AND x.occurred_at >= $6 AND x.occurred_at < $7
                 AND x.occurred_at > $8 AND x.occurred_at < $9 AND (x.occurred_at, x.event_id) < ($10, $11)
               ORDER BY x.occurred_at DESC, x.event_id DESC LIMIT $12) x
           LEFT JOIN LATERAL (SELECT * FROM audit_events e WHERE e.occurred_at = x.occurred_at AND e.id = x.event_id) e ON true
         ORDER BY x.occurred_at DESC, x.event_id DESC'
      END
      USING v_company, p_client, p_route, p_status_min, p_status_max, v_month, v_month + interval '1 month',
        coalesce(p_after, '-infinity'), coalesce(p_before, 'infinity'), v_at, v_id, v_batch, p_resource
    LOOP
      v_read := v_read + 1;
      v_at := v_row.at;
      v_id := v_row.at_id;
      IF v_row.hit THEN
        RETURN QUERY SELECT v_row.id, v_row.occurred_at, v_row.request_id, v_row.client, v_row.address, v_row.method, v_row.route,
          v_row.path_params, v_row.query, v_row.status, v_row.resource_ids, v_row.truncated, v_row.attempts, false;
        v_found := v_found + 1;
        IF v_found >= p_limit THEN RETURN; END IF;
      END IF;
    END LOOP;
    v_examined := v_examined + v_read;
    IF v_read < v_batch THEN
      -- The month is read to its start: go on with the month before it.
      v_month := v_month - interval '1 month';
    ELSIF v_examined >= v_scan THEN
      -- The bound is spent before the page filled: one last row that is not an event, the position
      -- of the last row examined, from which the next call goes on.
      RETURN QUERY SELECT v_id, v_at, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::jsonb, NULL::jsonb,
        NULL::integer, NULL::jsonb, NULL::boolean, NULL::integer, true;
      RETURN;
    END IF;
  END LOOP;
END $$`,
  `REVOKE ALL ON FUNCTION app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer, integer) FROM PUBLIC`,
];

/** The function of 1766500000001-audit-read-utc.ts. */
const DOWN: string[] = [
  `DROP FUNCTION IF EXISTS app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer, integer)`,
  `CREATE OR REPLACE FUNCTION app_audit_events(
    p_client text, p_route text, p_status_min integer, p_status_max integer, p_resource text,
    p_after timestamptz, p_before timestamptz, p_at timestamptz, p_id bigint, p_limit integer)
  RETURNS TABLE (id bigint, occurred_at timestamptz, request_id text, client text, address text, method text, route text,
    path_params jsonb, query jsonb, status integer, resource_ids jsonb, truncated boolean)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  -- Every statement here reads one index range in order and stops at the page: never a bitmap of
  -- all the month's matches sorted afterwards, which the planner may prefer for a range it
  -- underestimates (a record read thousands of times, a partition not yet vacuumed).
  SET enable_sort = off SET enable_bitmapscan = off
  -- The trail's partitions are UTC months: the month arithmetic below is done in UTC whatever the
  -- session's time zone (a month added to a timestamptz is a calendar month of the session's zone).
  SET TimeZone = 'UTC' AS $$
DECLARE
  v_company text := nullif(current_setting('app.audit_company', true), '');
  v_filters text := '';
  v_at timestamptz := coalesce(p_at, 'infinity');
  v_id bigint := coalesce(p_id, 9223372036854775807);
  v_found integer := 0;
  v_read integer;
  v_one integer;
  v_key record;
  v_top timestamptz;
  v_bottom timestamptz;
  v_month timestamptz;
BEGIN
  IF v_company IS NULL THEN
    RAISE EXCEPTION 'app_audit_events reads one company''s trail: set app.audit_company in the transaction' USING ERRCODE = '42501';
  END IF;
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 1000 THEN
    RAISE EXCEPTION 'app_audit_events: limit % is not from 1 to 1000', p_limit USING ERRCODE = '22023';
  END IF;
  -- The months to read, newest first: from the newest matching row (or the position, or the window's
  -- end) down to the oldest (or the window's start). Each bound is one probe of an index per month.
  -- (One statement per shape: a statement whose plan is kept must not depend on which filters are set.)
  IF p_resource IS NULL AND p_client IS NULL THEN
    SELECT max(e.occurred_at), min(e.occurred_at) INTO v_top, v_bottom FROM audit_events e WHERE e.company = v_company;
  ELSIF p_resource IS NULL THEN
    SELECT max(e.occurred_at), min(e.occurred_at) INTO v_top, v_bottom FROM audit_events e
      WHERE e.company = v_company AND e.client = p_client;
  ELSE
    SELECT max(x.occurred_at), min(x.occurred_at) INTO v_top, v_bottom FROM audit_event_resources x
      WHERE x.company = v_company AND x.resource_id = p_resource;
  END IF;
  IF v_top IS NULL THEN RETURN; END IF;
  v_top := least(v_top, v_at, p_before);
  v_bottom := greatest(v_bottom, p_after);
  -- Only the filters asked are written into the statement.
  IF p_client IS NOT NULL THEN v_filters := v_filters || ' AND e.client = $2'; END IF;
  IF p_route IS NOT NULL THEN v_filters := v_filters || ' AND e.route = $3'; END IF;
  IF p_status_min IS NOT NULL THEN v_filters := v_filters || ' AND e.status BETWEEN $4 AND $5'; END IF;
  -- Month by month (a partition each: every statement is planned for its month's values, so it reads
  -- that partition's index in order and stops at the page), a page's worth at a time. The trail's
  -- partitions are UTC months.
  v_month := date_trunc('month', v_top AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  WHILE v_month + interval '1 month' > v_bottom LOOP
    IF p_resource IS NULL THEN
      -- The company's (or the client's) events of the month, from the position.
      RETURN QUERY EXECUTE
        'SELECT e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route, e.path_params, e.query, e.status, e.resource_ids, e.truncated
         FROM audit_events e
         WHERE e.company = $1 AND e.occurred_at >= $6 AND e.occurred_at < $7 AND e.occurred_at > $8 AND e.occurred_at < $9
           AND (e.occurred_at, e.id) < ($10, $11)' || v_filters || '
         ORDER BY e.occurred_at DESC, e.id DESC LIMIT $12'
        USING v_company, p_client, p_route, p_status_min, p_status_max, v_month, v_month + interval '1 month',
          coalesce(p_after, '-infinity'), coalesce(p_before, 'infinity'), v_at, v_id, p_limit - v_found;
      GET DIAGNOSTICS v_one = ROW_COUNT;
      v_found := v_found + v_one;
      IF v_found >= p_limit THEN RETURN; END IF;
      v_month := v_month - interval '1 month';
    ELSE
      -- "Who read this record?": its index rows of the month, from the position, and for each its
      -- event by key, kept when it passes the other filters.
      v_read := 0;
      FOR v_key IN EXECUTE
        'SELECT x.occurred_at, x.event_id FROM audit_event_resources x
         WHERE x.company = $1 AND x.resource_id = $2 AND x.occurred_at >= $3 AND x.occurred_at < $4
           AND x.occurred_at > $5 AND x.occurred_at < $6 AND (x.occurred_at, x.event_id) < ($7, $8)
         ORDER BY x.occurred_at DESC, x.event_id DESC LIMIT $9'
        USING v_company, p_resource, v_month, v_month + interval '1 month', coalesce(p_after, '-infinity'),
          coalesce(p_before, 'infinity'), v_at, v_id, p_limit
      LOOP
        v_read := v_read + 1;
        v_at := v_key.occurred_at;
        v_id := v_key.event_id;
        RETURN QUERY
          SELECT e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route, e.path_params, e.query, e.status, e.resource_ids, e.truncated
          FROM audit_events e
          WHERE e.occurred_at = v_key.occurred_at AND e.id = v_key.event_id AND e.company = v_company
            AND (p_client IS NULL OR e.client = p_client) AND (p_route IS NULL OR e.route = p_route)
            AND (p_status_min IS NULL OR e.status BETWEEN p_status_min AND p_status_max);
        GET DIAGNOSTICS v_one = ROW_COUNT;
        v_found := v_found + v_one;
        IF v_found >= p_limit THEN RETURN; END IF;
      END LOOP;
      -- The month is read to its start: go on with the month before it.
      IF v_read < p_limit THEN v_month := v_month - interval '1 month'; END IF;
    END IF;
  END LOOP;
END $$`,
  `REVOKE ALL ON FUNCTION app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer) FROM PUBLIC`,
  `ALTER TABLE audit_events DROP COLUMN IF EXISTS attempts`,
];
