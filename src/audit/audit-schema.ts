/**
 * The audit trail's table, written by the migrations into the main database and, when
 * AUDIT_DATABASE_URL names another database, into that one (src/audit/audit-store.ts).
 *
 * Append-only for the API role (INSERT, nothing else). The company and the client are kept
 * as their public ids so that the trail reads the same in a separate database, where the
 * companies table does not exist. `audit_events_company_time_idx` serves `audit:tail`.
 */
export const AUDIT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS audit_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    request_id text NOT NULL,
    company text,
    client text,
    address text,
    method text NOT NULL,
    route text,
    path_params jsonb NOT NULL DEFAULT '{}',
    query jsonb NOT NULL DEFAULT '{}',
    status integer NOT NULL,
    resource_ids jsonb NOT NULL DEFAULT '[]'
  )`,
  `CREATE INDEX IF NOT EXISTS audit_events_company_time_idx ON audit_events (company, occurred_at, id)`,
  `CREATE INDEX IF NOT EXISTS audit_events_request_idx ON audit_events (request_id)`,
];
