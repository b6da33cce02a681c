import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail as first created (unpartitioned; 1764600000000-audit-partitions converts it,
 * see audit-schema.ts); the API role gets INSERT on it from the grants step.
 */
const AUDIT_SCHEMA = [
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

export class Audit1764200000000 implements MigrationInterface {
  name = 'Audit1764200000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of AUDIT_SCHEMA) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_events');
  }
}
