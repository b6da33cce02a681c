import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseUrls } from '../config/database-urls';
import { ensureAuditPartitions, pruneAuditPartitions } from './audit-schema';

/**
 * Keeps the trail's partitions for `audit:prune`, as the audit table's owner: the coming months
 * are created ahead, and months wholly older than the retention are dropped. Meant to run daily
 * (a cron job, a Kubernetes CronJob); each run is idempotent.
 */
@Injectable()
export class AuditMaintenance {
  constructor(private readonly urls: DatabaseUrls) {}

  async prune(retentionDays: number, now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
    const client = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    await client.connect();
    try {
      // A detach waits for the transactions that use the partition; never longer than this.
      await client.query(`SET lock_timeout = '30s'`);
      const created = await ensureAuditPartitions(client, now, now);
      const dropped = await pruneAuditPartitions(client, retentionDays, now);
      return { created, dropped };
    } finally {
      await client.end();
    }
  }
}
