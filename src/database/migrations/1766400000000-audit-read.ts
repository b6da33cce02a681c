import type { PoolClient } from 'pg';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { mirrorResourcePartitions } from '../../audit/audit-read-sql';

/**
 * A company reads its own trail (`GET /v1/audit-events`): installs the read path of
 * src/audit/audit-read-sql.ts as it was on 2026-11-26, the literal statements, never edited again.
 *
 * What changed: the API role, which may only append to the trail, reads one company's events
 * through the SECURITY DEFINER function `app_audit_events`, bound to the company its transaction
 * names, and the names of its clients through `app_company_clients`, bound to the tenant; every event is indexed under each id its answer named (`audit_event_resources`, kept by
 * a statement trigger, partitioned by month like the trail) and the trail gains an index by
 * client. The events already written are indexed here. Building the client index locks writers
 * of the trail out for as long as it takes (a large trail: build it per partition beforehand, see
 * docs/DEPLOYMENT.md).
 */
export class AuditRead1766400000000 implements MigrationInterface {
  name = 'AuditRead1766400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
    await mirrorResourcePartitions((await q.connect()) as PoolClient);
    await q.query(
      `INSERT INTO audit_event_resources (company, resource_id, occurred_at, event_id)
       SELECT DISTINCT e.company, r.id, e.occurred_at, e.id
       FROM audit_events e CROSS JOIN LATERAL jsonb_array_elements_text(e.resource_ids) AS r(id)
       WHERE e.company IS NOT NULL AND jsonb_typeof(e.resource_ids) = 'array'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS audit_events_index_resources ON audit_events');
    await q.query('DROP FUNCTION IF EXISTS app_audit_index_resources()');
    await q.query(
      'DROP FUNCTION IF EXISTS app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer)',
    );
    await q.query('DROP TABLE IF EXISTS audit_event_resources');
    await q.query('DROP INDEX IF EXISTS audit_events_company_client_idx');
    await q.query('DROP FUNCTION IF EXISTS app_company_clients(text[])');
  }
}

/** The read path. */
const UP: string[] = [
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
    WHERE n.company IS NOT NULL AND jsonb_typeof(n.resource_ids) = 'array';
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER audit_events_index_resources AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION app_audit_index_resources()`,
  `CREATE OR REPLACE FUNCTION app_audit_events(
    p_client text, p_route text, p_status_min integer, p_status_max integer, p_resource text,
    p_after timestamptz, p_before timestamptz, p_at timestamptz, p_id bigint, p_limit integer)
  RETURNS TABLE (id bigint, occurred_at timestamptz, request_id text, client text, address text, method text, route text,
    path_params jsonb, query jsonb, status integer, resource_ids jsonb, truncated boolean)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_company text := nullif(current_setting('app.audit_company', true), '');
  v_filters text := '';
  v_window text := '';
BEGIN
  IF v_company IS NULL THEN
    RAISE EXCEPTION 'app_audit_events reads one company''s trail: set app.audit_company in the transaction' USING ERRCODE = '42501';
  END IF;
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 1000 THEN
    RAISE EXCEPTION 'app_audit_events: limit % is not from 1 to 1000', p_limit USING ERRCODE = '22023';
  END IF;
  -- Only the filters asked are written into the statement, which is planned for its values:
  -- each shape gets the index that serves it, and the months outside the window are pruned.
  IF p_client IS NOT NULL THEN v_filters := v_filters || ' AND e.client = $2'; END IF;
  IF p_route IS NOT NULL THEN v_filters := v_filters || ' AND e.route = $3'; END IF;
  IF p_status_min IS NOT NULL THEN v_filters := v_filters || ' AND e.status BETWEEN $4 AND $5'; END IF;
  -- The window and the position, on the rows read in order (%1$s: their alias, %2$s: their event key).
  IF p_after IS NOT NULL THEN v_window := v_window || ' AND %1$s.occurred_at > $7'; END IF;
  IF p_before IS NOT NULL THEN v_window := v_window || ' AND %1$s.occurred_at < $8'; END IF;
  IF p_at IS NOT NULL THEN v_window := v_window || ' AND (%1$s.occurred_at, %1$s.%2$s) < ($9, $10)'; END IF;
  IF p_resource IS NULL THEN
    RETURN QUERY EXECUTE
      'SELECT e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route, e.path_params, e.query, e.status, e.resource_ids, e.truncated
       FROM audit_events e WHERE e.company = $1' || format(v_window, 'e', 'id') || v_filters || '
       ORDER BY e.occurred_at DESC, e.id DESC LIMIT $11'
      USING v_company, p_client, p_route, p_status_min, p_status_max, p_resource, p_after, p_before, p_at, p_id, p_limit;
  ELSE
    -- The index rows of the id, newest first, each joined to its event by the event's key; the
    -- window and the position bound the index rows, so only their months are read.
    RETURN QUERY EXECUTE
      'SELECT e.id, e.occurred_at, e.request_id, e.client, e.address, e.method, e.route, e.path_params, e.query, e.status, e.resource_ids, e.truncated
       FROM audit_event_resources x
       JOIN audit_events e ON e.occurred_at = x.occurred_at AND e.id = x.event_id AND e.company = $1
       WHERE x.company = $1 AND x.resource_id = $6' || format(v_window, 'x', 'event_id') || v_filters || '
       ORDER BY x.occurred_at DESC, x.event_id DESC LIMIT $11'
      USING v_company, p_client, p_route, p_status_min, p_status_max, p_resource, p_after, p_before, p_at, p_id, p_limit;
  END IF;
END $$`,
  `REVOKE ALL ON FUNCTION app_audit_events(text, text, integer, integer, text, timestamptz, timestamptz, timestamptz, bigint, integer) FROM PUBLIC`,
  `REVOKE ALL ON FUNCTION app_audit_index_resources() FROM PUBLIC`,
  `CREATE OR REPLACE FUNCTION app_company_clients(p_ids text[]) RETURNS TABLE (client_id text, name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT c.public_id, c.name FROM api_clients c
  WHERE c.company_id = nullif(current_setting('app.company_id', true), '')::bigint AND c.public_id = ANY (p_ids)
$$`,
  `REVOKE ALL ON FUNCTION app_company_clients(text[]) FROM PUBLIC`,
];
