import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseUrls } from '../config/database-urls';
import { AuditEventFilters } from './audit-read-sql';
import { AuditEventFields, filterArguments, readCompanyTrail } from './company-trail-read';

/** An event as the CLI reads it: with its company. */
export interface AuditRecord extends AuditEventFields {
  company: string | null;
}

const RECORD_COLUMNS = `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at, request_id, company, client,
  address, method, route, path_params, query, status, resource_ids, truncated, attempts`;

/** Rows per statement of an export: memory stays flat however long the window. */
const EXPORT_BATCH = 1000;

/**
 * Reads the trail for `audit:tail`, as the audit table's owner (the API role may only append).
 * One short-lived connection per call: the CLI reads once and exits.
 */
@Injectable()
export class AuditReader {
  constructor(private readonly urls: DatabaseUrls) {}

  /**
   * The latest `limit` events of a company that pass `filters` (those of `GET /v1/audit-events`),
   * oldest first: read through the same function the route reads through.
   */
  async tail(company: string, limit: number, filters: AuditEventFilters = {}): Promise<AuditRecord[]> {
    const client = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    await client.connect();
    try {
      return await readCompanyTrail(client, company, async () => {
        const { rows } = await client.query<AuditRecord>(
          `SELECT ${RECORD_COLUMNS.replace('company, client', '$9::text AS company, client')}
         FROM app_audit_events($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, NULL) e
         ORDER BY e.occurred_at, e.id`,
          [...filterArguments(filters), limit, company],
        );
        return rows;
      });
    } finally {
      await client.end();
    }
  }

  /**
   * Every event with `from <= occurred_at < to` (one company's, when given), oldest first, handed
   * to `write` in batches read by keyset over `(occurred_at, id)`: only the partitions of the window
   * are read, and memory stays flat. `progress` hears how many of how many were written.
   */
  async export(
    window: { from: string; to: string; company?: string },
    write: (records: AuditRecord[]) => Promise<void>,
    progress: (done: number, total: number) => void = () => undefined,
  ): Promise<number> {
    const client = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    await client.connect();
    try {
      const scope = `occurred_at >= $1::timestamptz AND occurred_at < $2::timestamptz AND ($3::text IS NULL OR company = $3)`;
      const values = [window.from, window.to, window.company ?? null];
      const { rows: count } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM audit_events WHERE ${scope}`, values);
      const total = Number(count[0].n);
      let done = 0;
      let after: [string, string] = ['-infinity', '0'];
      for (;;) {
        const { rows } = await client.query<AuditRecord & { position: string; id: string }>(
          `SELECT ${RECORD_COLUMNS}, occurred_at::text AS position, id::text AS id FROM audit_events
           WHERE ${scope} AND (occurred_at, id) > ($4::timestamptz, $5::bigint)
           ORDER BY occurred_at, id LIMIT ${EXPORT_BATCH}`,
          [...values, ...after],
        );
        if (!rows.length) break;
        after = [rows[rows.length - 1].position, rows[rows.length - 1].id];
        await write(rows.map(({ position: _p, id: _i, ...record }) => record));
        done += rows.length;
        progress(done, Math.max(total, done));
      }
      return done;
    } finally {
      await client.end();
    }
  }
}
