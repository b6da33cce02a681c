import { inTransaction } from '../common/transaction';
import { AuditEventFilters } from './audit-read-sql';

/** What every read of the trail returns of an event (the route's page and the CLI's records add their own). */
export interface AuditEventFields {
  occurred_at: string;
  request_id: string;
  client: string | null;
  address: string | null;
  method: string;
  route: string | null;
  path_params: Record<string, string>;
  query: Record<string, unknown>;
  status: number;
  resource_ids: string[];
  truncated: boolean;
  attempts: number;
}

/** A connection to the trail's database: a pooled client of pg, or one of its own. */
interface TrailClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * `work` in a read-only transaction that names the company whose events `app_audit_events` may
 * return (`app.audit_company`, set for this transaction only): how the route and `audit:tail`
 * both read one company's trail. `rollbackFailed` as inTransaction's.
 */
export function readCompanyTrail<T>(
  client: TrailClient,
  company: string,
  work: () => Promise<T>,
  rollbackFailed?: (failure: Error) => void,
): Promise<T> {
  return inTransaction(
    client,
    async () => {
      await client.query(`SELECT set_config('app.audit_company', $1, true)`, [company]);
      return work();
    },
    'BEGIN READ ONLY',
    rollbackFailed,
  );
}

/** `app_audit_events`' first seven arguments ($1 to $7): the filters, each NULL when absent. */
export function filterArguments(filters: AuditEventFilters): unknown[] {
  return [
    filters.client ?? null,
    filters.route ?? null,
    filters.status?.min ?? null,
    filters.status?.max ?? null,
    filters.resource ?? null,
    filters.after ?? null,
    filters.before ?? null,
  ];
}
