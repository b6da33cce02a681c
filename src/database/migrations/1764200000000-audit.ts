import { MigrationInterface, QueryRunner } from 'typeorm';
import { AUDIT_SCHEMA } from '../../audit/audit-schema';

/** The audit trail (see audit-schema.ts); the API role gets INSERT on it from the grants step. */
export class Audit1764200000000 implements MigrationInterface {
  name = 'Audit1764200000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of AUDIT_SCHEMA) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_events');
  }
}
