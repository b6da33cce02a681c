import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { AUDIT_READ_FUNCTION, AuditEventFilters } from '../audit/audit-read-sql';
import { AuditEventFields, filterArguments, readCompanyTrail } from '../audit/company-trail-read';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { iso, micros } from '../database/sql';
import { Metrics } from '../metrics/metrics';
import { FairGate } from '../database/fair-gate';
import { ReadReplicas } from '../database/read-replicas';
import { PoolGate } from '../database/pool-gate';

/** One row of a company's trail as the read function returns it, with its keyset position. */
export interface AuditEventRow extends AuditEventFields {
  key: string;
  position: string;
}

/** What one call of the read function found: its events, and where its scan stopped when the bound ended it first. */
export interface AuditEventScan {
  rows: AuditEventRow[];
  /** The keyset position of the last row examined, when AUDIT_SCAN_ROWS ended the read before the page filled. */
  scanEnd: [string, string] | null;
}

/**
 * A statement on the trail never runs longer than this: every page's plan is an ordered index
 * range of at most AUDIT_SCAN_ROWS rows. A read waiting for its company's turn waits as long.
 */
const READ_TIMEOUT_MS = 10_000;

/**
 * Reads a company's own trail, where it lives (the main database, or AUDIT_DATABASE_URL's),
 * as the API role: through `app_audit_events` only (src/audit/audit-read-sql.ts), in a short
 * transaction that names the company. Its own connections (AUDIT_READ_POOL_SIZE): reading the
 * trail never takes a connection the fail-closed writes of every read need. One company holds at
 * most one of them at a time, through the same fair gate as the request pool (database/fair-gate.ts):
 * its other reads wait behind its own, round robin with other companies waiting. One, not half:
 * a read examines up to AUDIT_SCAN_ROWS rows, a core of PostgreSQL while it runs, and two at once
 * of one company took both cores of the bench machine from everyone (bench:neighbours). A read
 * that waited READ_TIMEOUT_MS is refused (503 AUDIT_UNAVAILABLE).
 */
@Injectable()
export class AuditEventsRepository implements OnModuleDestroy {
  private readonly logger = new Logger('AuditEvents');
  private readonly pool: Pool;
  /** Where the trail is the main database's, the same reader on each hot standby (read-replicas.ts), by its name. */
  private readonly onReplicas = new Map<string, Pool>();
  private readonly scanRows: number;
  readonly share: FairGate;

  constructor(
    urls: DatabaseUrls,
    metrics: Metrics,
    config: AppConfig,
    private readonly gates: PoolGate,
    private readonly replicas: ReadReplicas,
  ) {
    const { poolSize, scanRows } = config.auditRead;
    this.scanRows = scanRows;
    this.share = new FairGate(poolSize, 1);
    const reader = (url: string) => {
      const pool = new Pool({
        connectionString: url,
        max: poolSize,
        application_name: 'conversation-read-api-audit-reader',
        connectionTimeoutMillis: READ_TIMEOUT_MS,
        statement_timeout: READ_TIMEOUT_MS,
        keepAlive: true,
      });
      pool.on('error', (error) => this.logger.warn({ err: error.message }, 'audit reader connection lost'));
      return pool;
    };
    this.pool = reader(urls.audit);
    metrics.watchPool('audit_reader', this.pool);
    // A separate audit database has no standby of DATABASE_REPLICA_URLS: its reads stay where it is.
    if (urls.audit === urls.api) for (const replica of replicas.replicas) this.onReplicas.set(replica.name, reader(replica.url));
  }

  /**
   * Up to `limit` events of `company` (its public id) after `position`, newest first, from at most
   * AUDIT_SCAN_ROWS rows examined: fewer when the bound ended the read first (`scanEnd`).
   */
  page(company: string, filters: AuditEventFilters, position: [string, string] | null, limit: number): Promise<AuditEventScan> {
    const read = () => this.share.run(company, READ_TIMEOUT_MS, () => this.read(company, filters, position, limit));
    // A filtered read is heavy work (up to AUDIT_SCAN_ROWS rows examined, a core of PostgreSQL):
    // it takes the company's heavy turn too, beside its heavy pages, within HEAVY_REQUESTS_MAX. An
    // unfiltered page (a time range at most) reads its limit from an index and waits for no one.
    const heavy = [filters.client, filters.route, filters.status, filters.resource].some((f) => f !== undefined);
    return heavy ? this.gates.heavy.run(company, READ_TIMEOUT_MS, read) : read();
  }

  private async read(
    company: string,
    filters: AuditEventFilters,
    position: [string, string] | null,
    limit: number,
  ): Promise<AuditEventScan> {
    const replica = this.onReplicas.size ? this.replicas.pick() : undefined;
    const client = await (replica ? this.onReplicas.get(replica.name)! : this.pool).connect();
    let broken: Error | undefined;
    try {
      const rows = await readCompanyTrail(
        client,
        company,
        async () => {
          const { rows } = await client.query<AuditEventRow & { scan_end: boolean }>(
            `SELECT e.id::text AS key, ${micros('e.occurred_at')} AS position, ${iso('e.occurred_at')} AS occurred_at, e.request_id, e.client,
           e.address, e.method, e.route, e.path_params, e.query, e.status, e.resource_ids, e.truncated, e.attempts, e.scan_end
         FROM ${AUDIT_READ_FUNCTION.replace(/\(.*\)/, '')}($1, $2, $3, $4, $5, $6, $7,
           CASE WHEN $8::bigint IS NULL THEN NULL ELSE timestamptz 'epoch' + $8::bigint * interval '1 microsecond' END, $9, $10, $11) e`,
            [...filterArguments(filters), position?.[0] ?? null, position?.[1] ?? null, limit, this.scanRows],
          );
          return rows;
        },
        (failure) => (broken = failure),
      );
      const last = rows[rows.length - 1];
      if (last?.scan_end) return { rows: rows.slice(0, -1).map(withoutScanEnd), scanEnd: [last.position, last.key] };
      return { rows: rows.map(withoutScanEnd), scanEnd: null };
    } finally {
      client.release(broken);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.pool, ...this.onReplicas.values()].map((pool) => pool.end()));
  }
}

const withoutScanEnd = ({ scan_end: _end, ...row }: AuditEventRow & { scan_end: boolean }): AuditEventRow => row;
