import type { Client, PoolClient } from 'pg';
import { auditPartitions, ensurePartition } from './audit-schema';

type Sql = Pick<Client | PoolClient, 'query'>;

/**
 * How a company reads its own trail (`GET /v1/audit-events`): today's statements, in the one
 * place they live. The migration that installed them holds them literally (migrations are
 * history); `npm run migration:run` installs them in a separate audit database
 * (AUDIT_DATABASE_URL) from here, and a medium spec checks that a fresh database runs these,
 * word for word.
 *
 * - The API role keeps INSERT on the trail and nothing else on its tables: it reads through
 *   `app_audit_events`, a SECURITY DEFINER function bound to the company the calling transaction
 *   names in `app.audit_company` (set with `set_config(…, true)`, as `app.company_id` binds
 *   row-level security). Without it the function refuses; there is no way to ask it for all
 *   companies, or for a company without naming it in the transaction.
 * - `audit_event_resources` indexes each event under every id its answer named, one row per
 *   (event, id), written by a statement trigger on the trail (so every writer, present or future,
 *   keeps it) and partitioned by month like the trail (retention drops both). "Who read this
 *   meeting?" is then one ordered index range, newest first, joined to its events by their key:
 *   a page reads its own rows, however many events the trail or that id holds.
 * - `audit_events_company_client_idx` does the same for one client's events.
 * - Every call examines at most `p_scan` rows of the index it walks (AUDIT_SCAN_ROWS): a filter
 *   no index serves (`route`, `status`) is judged row by row, so a rare one over a long trail
 *   would otherwise read months of rows for one page. When the bound is spent before the page
 *   fills, the last row returned is not an event (`scan_end`) but the position of the last row
 *   examined: the page is short, and the next one continues from there.
 */
export const AUDIT_READ_SQL: string[] = [
  `CREATE TABLE IF NOT EXISTS audit_event_resources (
    company text NOT NULL,
    resource_id text NOT NULL,
    occurred_at timestamptz NOT NULL,
    event_id bigint NOT NULL
  ) PARTITION BY RANGE (occurred_at)`,
  `CREATE INDEX IF NOT EXISTS audit_event_resources_lookup_idx ON audit_event_resources (company, resource_id, occurred_at, event_id)`,
  `CREATE INDEX IF NOT EXISTS audit_events_company_client_idx ON audit_events (company, client, occurred_at, id)`,
  `CREATE OR REPLACE FUNCTION app_audit_index_resources() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  INSERT INTO audit_event_resources (company, resource_id, occurred_at, event_id)
    SELECT DISTINCT n.company, r.id, n.occurred_at, n.id
    FROM new_events n CROSS JOIN LATERAL jsonb_array_elements_text(n.resource_ids) AS r(id)
    WHERE n.company IS NOT NULL AND jsonb_typeof(n.resource_ids) = 'array' AND r.id IS NOT NULL;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER audit_events_index_resources AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION app_audit_index_resources()`,
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
  `REVOKE ALL ON FUNCTION app_audit_index_resources() FROM PUBLIC`,
];

/**
 * The names of a company's clients, for the events' `client`: in the main database only (the
 * credentials table, which the API role may not read), bound to the tenant transaction's
 * `app.company_id` as row-level security is.
 */
export const CLIENT_NAMES_SQL: string[] = [
  `CREATE OR REPLACE FUNCTION app_company_clients(p_ids text[]) RETURNS TABLE (client_id text, name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT c.public_id, c.name FROM api_clients c
  WHERE c.company_id = nullif(current_setting('app.company_id', true), '')::bigint AND c.public_id = ANY (p_ids)
$$`,
  `REVOKE ALL ON FUNCTION app_company_clients(text[]) FROM PUBLIC`,
];

/** A status filter read: the codes from `min` to `max` (one code, or a class such as 4xx). */
export interface StatusRange {
  min: number;
  max: number;
}

/** What a read of a company's trail keeps (the filters of `GET /v1/audit-events` and `audit:tail`); instants as UTC text. */
export interface AuditEventFilters {
  client?: string;
  route?: string;
  status?: StatusRange;
  resource?: string;
  after?: string;
  before?: string;
}

/** The read function's signature, as GRANT and the privilege checks name it. */
export const AUDIT_READ_FUNCTION =
  'app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer, integer)';

/**
 * Installs today's read path (idempotent; as the trail's owner) and gives the resource index a
 * partition for every month the trail has one. Used by `npm run migration:run` for a separate
 * audit database; the main database gets it from its migrations.
 */
export async function ensureAuditReadPath(sql: Sql): Promise<void> {
  const { rows } = await sql.query<{ present: boolean }>(`SELECT to_regclass('audit_event_resources') IS NOT NULL AS present`);
  for (const statement of AUDIT_READ_SQL) await sql.query(statement);
  await mirrorResourcePartitions(sql);
  // A trail that had events before its index existed: index them, as the main database's migration did.
  if (!rows[0].present) await sql.query(INDEX_EXISTING_EVENTS);
}

/** Every event already in the trail under each id its answer named (what the trigger does for new ones). */
const INDEX_EXISTING_EVENTS = `INSERT INTO audit_event_resources (company, resource_id, occurred_at, event_id)
  SELECT DISTINCT e.company, r.id, e.occurred_at, e.id
  FROM audit_events e CROSS JOIN LATERAL jsonb_array_elements_text(e.resource_ids) AS r(id)
  WHERE e.company IS NOT NULL AND jsonb_typeof(e.resource_ids) = 'array' AND r.id IS NOT NULL`;

/** A partition of `audit_event_resources` for each month of the trail that lacks one. */
export async function mirrorResourcePartitions(sql: Sql): Promise<string[]> {
  const made: string[] = [];
  for (const month of await auditPartitions(sql)) {
    if (await ensurePartition(sql, 'audit_event_resources', month.from)) made.push(month.name);
  }
  return made;
}
