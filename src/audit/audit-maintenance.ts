import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseUrls } from '../config/database-urls';
import { ensureAuditPartitions, pruneAuditPartitions } from './audit-schema';

/**
 * Keeps the trail's partitions for `audit:prune`, as the audit table's owner: the coming months
 * are created ahead, and months wholly older than the retention are dropped. `audit:prune` is
 * meant to run daily (a cron job, a Kubernetes CronJob); the worker creates the coming months
 * daily on its own (`ensureAhead`). Each run is idempotent.
 */
@Injectable()
export class AuditMaintenance {
  constructor(private readonly urls: DatabaseUrls) {}

  async prune(retentionDays: number, now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
    return this.asOwner(async (client) => {
      const created = await ensureAuditPartitions(client, now, now);
      const dropped = await pruneAuditPartitions(client, retentionDays, now);
      return { created, dropped };
    });
  }

  /** The coming months' partitions only (the worker's daily upkeep: a service that runs for months never lacks one). */
  ensureAhead(now = new Date()): Promise<string[]> {
    return this.asOwner((client) => ensureAuditPartitions(client, now, now));
  }

  private async asOwner<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    client.on('error', () => undefined); // a connection lost between statements: the statement in flight rejects
    await client.connect();
    try {
      // A detach or attach waits for the transactions that use the table; never longer than this.
      await client.query(`SET lock_timeout = '30s'`);
      return await work(client);
    } finally {
      await client.end();
    }
  }
}
