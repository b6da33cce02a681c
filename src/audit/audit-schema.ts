import type { Client, PoolClient } from 'pg';

type Sql = Pick<Client | PoolClient, 'query'>;

/**
 * The audit trail's table, written by the migrations into the main database and, when
 * AUDIT_DATABASE_URL names another database, into that one (src/audit/audit-store.ts).
 *
 * Append-only for the API role (INSERT, nothing else). The company and the client are kept
 * as their public ids so that the trail reads the same in a separate database, where the
 * companies table does not exist. `audit_events_company_time_idx` serves `audit:tail` and
 * `audit:export`.
 *
 * Partitioned by month of `occurred_at` (native range partitioning), so retention drops whole
 * partitions (`audit:prune`) instead of deleting rows, and an export reads only the months it
 * asks for. Partitions are created ahead of time by the migrations and by every `audit:prune`;
 * a row for a month without a partition cannot be written, which fails closed (503).
 *
 * An earlier, unpartitioned table is converted in place: renamed aside, its rows copied into
 * the partitions, then dropped.
 */
export const AUDIT_SCHEMA = [
  `DO $$
   BEGIN
     IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relname = 'audit_events' AND n.nspname = current_schema() AND c.relkind = 'r') THEN
       ALTER TABLE audit_events RENAME TO audit_events_unpartitioned;
       ALTER INDEX IF EXISTS audit_events_company_time_idx RENAME TO audit_events_unpartitioned_company_time_idx;
       ALTER INDEX IF EXISTS audit_events_request_idx RENAME TO audit_events_unpartitioned_request_idx;
       ALTER INDEX IF EXISTS audit_events_pkey RENAME TO audit_events_unpartitioned_pkey;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS audit_events (
    id bigint GENERATED ALWAYS AS IDENTITY,
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
    resource_ids jsonb NOT NULL DEFAULT '[]',
    truncated boolean NOT NULL DEFAULT false,
    PRIMARY KEY (occurred_at, id)
  ) PARTITION BY RANGE (occurred_at)`,
  `CREATE INDEX IF NOT EXISTS audit_events_company_time_idx ON audit_events (company, occurred_at, id)`,
  `CREATE INDEX IF NOT EXISTS audit_events_request_idx ON audit_events (request_id)`,
  // Failed authentication is recorded per address, reason and window (audit-failures.ts): a row
  // then stands for `attempts` requests, the first of which it describes.
  `ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 1`,
];

/** Months of partitions kept ready ahead of now. */
export const AUDIT_MONTHS_AHEAD = 12;

/** The tables partitioned by month of `occurred_at`: the trail and its resource index (audit-read-sql.ts), pruned together. */
export const AUDIT_TABLES = ['audit_events', 'audit_event_resources'] as const;
export type AuditTable = (typeof AUDIT_TABLES)[number];

const partitionPattern = (table: string) => new RegExp(`^${table}_p(\\d{4})(\\d{2})$`);

/** The first instant (UTC) of the month `offset` months after the month of `date`. */
export function monthStart(date: Date, offset = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1));
}

export function partitionName(month: Date, table: AuditTable = 'audit_events'): string {
  return `${table}_p${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The monthly partitions of `table`, oldest first, with the month each covers. */
export async function auditPartitions(
  sql: Sql,
  table: AuditTable = 'audit_events',
): Promise<Array<{ name: string; from: Date; to: Date }>> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`,
    [table],
  );
  const pattern = partitionPattern(table);
  return rows
    .map(({ name }) => ({ name, m: pattern.exec(name) }))
    .filter((p): p is { name: string; m: RegExpExecArray } => p.m !== null)
    .map(({ name, m }) => {
      const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
      return { name, from, to: monthStart(from, 1) };
    });
}

/**
 * The partition of `table` for the month of `month`, when missing: created on its own, checked to
 * its month, then attached. Attaching takes a lock that lets rows keep being written (SHARE UPDATE
 * EXCLUSIVE), where creating a table as a partition would lock out every writer for the moment it
 * takes. True when it was made.
 */
export async function ensurePartition(sql: Sql, table: AuditTable, month: Date): Promise<boolean> {
  const name = partitionName(monthStart(month), table);
  const { rows } = await sql.query<{ attached: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = to_regclass($1) AND i.inhparent = to_regclass($2)) AS attached`,
    [name, table],
  );
  if (rows[0].attached) return false;
  const [lower, upper] = [monthStart(month).toISOString(), monthStart(month, 1).toISOString()];
  // Each step may find what an interrupted run left (a table not yet attached, its CHECK): it goes on from there.
  await sql.query(`CREATE TABLE IF NOT EXISTS ${name} (LIKE ${table} INCLUDING DEFAULTS)`);
  await sql.query(`ALTER TABLE ${name} DROP CONSTRAINT IF EXISTS ${name}_month`);
  await sql.query(`ALTER TABLE ${name} ADD CONSTRAINT ${name}_month CHECK (occurred_at >= '${lower}' AND occurred_at < '${upper}')`);
  await sql.query(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${lower}') TO ('${upper}')`);
  await sql.query(`ALTER TABLE ${name} DROP CONSTRAINT ${name}_month`);
  return true;
}

/**
 * Creates the missing monthly partitions from the month of `from` through AUDIT_MONTHS_AHEAD
 * months after `now`, of the trail and (once it exists) of its resource index.
 */
export async function ensureAuditPartitions(sql: Sql, from: Date, now = new Date()): Promise<string[]> {
  const { rows } = await sql.query<{ indexed: boolean }>(`SELECT to_regclass('audit_event_resources') IS NOT NULL AS indexed`);
  const created: string[] = [];
  for (let month = monthStart(from); month <= monthStart(now, AUDIT_MONTHS_AHEAD); month = monthStart(month, 1)) {
    // The index's month first: a trail month without it would fail every insert its trigger indexes.
    if (rows[0].indexed && (await ensurePartition(sql, 'audit_event_resources', month)))
      created.push(partitionName(month, 'audit_event_resources'));
    if (await ensurePartition(sql, 'audit_events', month)) created.push(partitionName(month));
  }
  return created;
}

/**
 * Brings the trail to its current shape: the partitioned table, partitions for every month
 * since its oldest row (at least a year back) and a year ahead, and the rows of an earlier
 * unpartitioned table moved in. Idempotent; run as the table's owner.
 */
export async function ensureAuditSchema(sql: Sql, now = new Date()): Promise<void> {
  for (const statement of AUDIT_SCHEMA) await sql.query(statement);
  const { rows } = await sql.query<{ legacy: boolean }>(`SELECT to_regclass('audit_events_unpartitioned') IS NOT NULL AS legacy`);
  // A year back too, so rows imported or replayed from the recent past have a partition.
  let oldest = monthStart(now, -12);
  if (rows[0].legacy) {
    const { rows: min } = await sql.query<{ min: Date | null }>('SELECT min(occurred_at) AS min FROM audit_events_unpartitioned');
    if (min[0].min && min[0].min < oldest) oldest = min[0].min;
  }
  await ensureAuditPartitions(sql, oldest, now);
  if (rows[0].legacy) {
    // The new table takes over the old one's grants in the same transaction, so writers already
    // running (the API role's INSERT) are never refused between this migration and the grants step.
    const { rows: grants } = await sql.query<{ grantee: string; privilege: string }>(
      `SELECT grantee, privilege_type AS privilege FROM information_schema.role_table_grants
       WHERE table_schema = current_schema() AND table_name = 'audit_events_unpartitioned' AND grantee <> current_user`,
    );
    for (const { grantee, privilege } of grants) {
      await sql.query(`GRANT ${privilege} ON audit_events TO ${grantee === 'PUBLIC' ? 'PUBLIC' : `"${grantee.replace(/"/g, '""')}"`}`);
    }
    await sql.query(
      `INSERT INTO audit_events (occurred_at, recorded_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids)
       SELECT occurred_at, recorded_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids
       FROM audit_events_unpartitioned ORDER BY id`,
    );
    await sql.query('DROP TABLE audit_events_unpartitioned');
  }
}

/**
 * Drops the partitions whose whole month ended more than `retentionDays` ago, never one that
 * still holds a row inside the window. Each is detached CONCURRENTLY (writers and readers of
 * other partitions are not blocked), then dropped. Runs outside a transaction. What an interrupted
 * run left is finished: a detach still pending is finalized, and a month table already detached
 * but not dropped is dropped (when past the retention).
 */
export async function pruneAuditPartitions(sql: Sql, retentionDays: number, now = new Date()): Promise<string[]> {
  const dropped: string[] = [];
  for (const table of AUDIT_TABLES) dropped.push(...(await prunePartitions(sql, table, retentionDays, now)));
  return dropped;
}

async function prunePartitions(sql: Sql, table: AuditTable, retentionDays: number, now: Date): Promise<string[]> {
  const { rows: exists } = await sql.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [table]);
  if (!exists[0].present) return [];
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const { rows: pending } = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass($1) AND i.inhdetachpending`,
    [table],
  );
  const pendingNames = new Set(pending.map((p) => p.name));
  const dropped: string[] = [];
  for (const partition of await auditPartitions(sql, table)) {
    if (partition.to > cutoff) continue;
    const finish = pendingNames.has(partition.name) ? 'FINALIZE' : 'CONCURRENTLY';
    await sql.query(`ALTER TABLE ${table} DETACH PARTITION ${partition.name} ${finish}`);
    await sql.query(`DROP TABLE ${partition.name}`);
    dropped.push(partition.name);
  }
  const { rows: detached } = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname ~ ('^' || $1 || '_p[0-9]{6}$')
       AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)`,
    [table],
  );
  const pattern = partitionPattern(table);
  for (const { name } of detached) {
    const m = pattern.exec(name)!;
    if (monthStart(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)), 1) > cutoff) continue;
    await sql.query(`DROP TABLE ${name}`);
    dropped.push(name);
  }
  return dropped;
}
