import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseUrls } from '../config/runtime';

export interface AuditRecord {
  occurred_at: string;
  request_id: string;
  company: string | null;
  client: string | null;
  address: string | null;
  method: string;
  route: string | null;
  path_params: Record<string, string>;
  query: Record<string, unknown>;
  status: number;
  resource_ids: string[];
}

/**
 * Reads the trail for `audit:tail`, as the audit table's owner (the API role may only append).
 * One short-lived connection per call: the CLI reads once and exits.
 */
@Injectable()
export class AuditReader {
  constructor(private readonly urls: DatabaseUrls) {}

  /** The latest `limit` events of a company (after `since` when given), oldest first. */
  async tail(company: string, limit: number, since?: string): Promise<AuditRecord[]> {
    const client = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    await client.connect();
    try {
      const { rows } = await client.query<AuditRecord>(
        `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at, request_id, company, client,
           address, method, route, path_params, query, status, resource_ids
         FROM (
           SELECT * FROM audit_events WHERE company = $1 AND ($2::timestamptz IS NULL OR occurred_at > $2::timestamptz)
           ORDER BY occurred_at DESC, id DESC LIMIT $3
         ) latest
         ORDER BY latest.occurred_at, latest.id`,
        [company, since ?? null, limit],
      );
      return rows;
    } finally {
      await client.end();
    }
  }
}
