import type { PoolClient } from 'pg';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { ensureAuditSchema } from '../../audit/audit-schema';

/**
 * The audit trail partitioned by month, with a `truncated` mark (see audit-schema.ts): the
 * existing rows move into monthly partitions, a year of partitions is made ready ahead.
 */
export class AuditPartitions1764600000000 implements MigrationInterface {
  name = 'AuditPartitions1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await ensureAuditSchema((await q.connect()) as PoolClient);
  }

  async down(): Promise<void> {
    throw new Error('the partitioned audit trail is not converted back');
  }
}
