import { DataSource } from 'typeorm';
import { AUDIT_READ_FUNCTION } from '../audit/audit-read-sql';
import { ROTATE_SECRET_FUNCTION } from './webhook-secrets-sql';
import { MIGRATIONS_TABLE } from './data-source-options';

/** Tables the API role may append to and never read; every other data table it may only read. */
export const APPEND_ONLY_TABLES = ['audit_events'];

/** The monthly partitions of the audit trail and of its resource index (audit-schema.ts). */
export const AUDIT_PARTITION = /^audit_event(s|_resources)_p\d{6}$/;

/**
 * Tables the API role may not touch at all: the credentials (it reaches one client at a time
 * through API_FUNCTIONS).
 */
export const CREDENTIAL_TABLES = ['api_clients', 'client_secrets'];

/**
 * The integrator's own delivery configuration, which `webhooks.manage` changes through the API
 * (docs/API.md, "Managing your webhooks"): what the API role may do on each table, every row
 * under forced row-level security (the company's endpoints, their deliveries through their
 * endpoint, its clients' idempotency keys), column by column where a column is a secret. It
 * writes a sealed secret but reads none back (a rotation, which moves the current secret, runs
 * through `app_rotate_webhook_secret`), and reads deliveries without their body. No DELETE on
 * deliveries (they go with their endpoint); nothing else: the conversation data stays read-only.
 */
export const WEBHOOK_ADMIN_TABLES: Record<string, readonly string[]> = {
  webhook_endpoints: [
    `SELECT (id, public_id, company_id, url, types, state, failing_since, previous_secret_until, position_epoch, position_xid,
      position_seq, batch_job, created_at, description, enabled, updated_at)`,
    'INSERT (public_id, company_id, url, types, description, secret, position_epoch, position_xid, position_seq)',
    'UPDATE (url, types, description, enabled, state, failing_since, updated_at)',
    'DELETE',
  ],
  webhook_deliveries: [
    `SELECT (id, public_id, endpoint_id, change_id, event_type, committed_at, replay, status, attempts, last_status, last_error,
      last_latency_ms, created_at, last_attempt_at, next_attempt_at, delivered_at, job_id)`,
    'INSERT (endpoint_id, change_id, event_type, committed_at, payload, replay, next_attempt_at)',
    'UPDATE (status, next_attempt_at, delivered_at)',
  ],
  idempotency_keys: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
};

/** What WEBHOOK_ADMIN_TABLES grants on the whole table (a privilege without a column list). */
export const tablePrivilegesOf = (grants: readonly string[]): string[] => grants.filter((g) => !g.includes('('));

/** The trail's resource index: kept by a trigger, read through `app_audit_events`, nothing for the API role. */
export const OWNER_ONLY_TABLES = ['audit_event_resources'];

/**
 * SECURITY DEFINER functions the API role may call (EXECUTE is revoked from PUBLIC on them): the
 * credential lookups, the change log's compaction and its horizon marks (the role only reads the log otherwise),
 * the company's own audit trail and the names of its clients.
 */
export const API_FUNCTIONS = [
  'app_client_state(text)',
  'app_client_credentials(text)',
  'app_client_token_secrets(text)',
  'app_compact_changes(timestamptz, integer)',
  'app_mark_change_horizon()',
  AUDIT_READ_FUNCTION,
  'app_company_clients(text[])',
  ROTATE_SECRET_FUNCTION,
];

/**
 * Runs pending migrations as the schema owner, then gives the API role exactly its
 * privileges: SELECT on data tables, INSERT on append-only tables, what WEBHOOK_ADMIN_TABLES
 * says on the webhook tables, EXECUTE on the credential lookups, nothing else.
 * Idempotent: it recomputes the grants from the current schema every time.
 */
export async function migrateAndGrant(owner: DataSource, apiRole: string | null): Promise<string[]> {
  const applied = await owner.runMigrations({ transaction: 'each' });
  if (apiRole) await grantApiPrivileges(owner, apiRole);
  return applied.map((m) => m.name);
}

export async function grantApiPrivileges(owner: DataSource, apiRole: string): Promise<void> {
  const [{ current_user: me }] = await owner.query('SELECT current_user');
  if (me === apiRole) return; // one role for both: nothing to grant (and the service refuses to start on it)
  const role = `"${apiRole.replace(/"/g, '""')}"`;
  const roleLiteral = `'${apiRole.replace(/'/g, "''")}'`;
  const tables: { name: string }[] = await owner.query(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1`,
    [MIGRATIONS_TABLE],
  );
  await owner.transaction(async (m) => {
    // No temporary objects (they could shadow names) and no new objects in the schema, for the
    // API role or anyone through PUBLIC. This needs the schema owner to own the database (as it
    // must); where it does not, migration:run stops here and says so.
    await m
      .query(`DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, %I', current_database(), ${roleLiteral}); END $$`)
      .catch((error: Error) => {
        throw new Error(
          `cannot revoke TEMPORARY on the database from PUBLIC and ${role} (${error.message}): the migration role must own the database`,
        );
      });
    // A REVOKE by a role that may not revoke is only a warning: check what it achieved.
    const [{ temp }] = await m.query(`SELECT has_database_privilege($1, current_database(), 'TEMPORARY') AS temp`, [apiRole]);
    if (temp) throw new Error(`${role} can still create temporary objects: the migration role must own the database to revoke TEMPORARY`);
    await m.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC, ${role}`);
    await m.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await m.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`);
    await m.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${role}`);
    for (const { name } of tables) {
      // Partitions of the trail are written through their parent only: nothing on them directly.
      if (CREDENTIAL_TABLES.includes(name) || OWNER_ONLY_TABLES.includes(name) || AUDIT_PARTITION.test(name)) continue;
      const privileges = WEBHOOK_ADMIN_TABLES[name] ?? [APPEND_ONLY_TABLES.includes(name) ? 'INSERT' : 'SELECT'];
      await m.query(`GRANT ${privileges.join(', ')} ON TABLE public."${name}" TO ${role}`);
    }
    for (const fn of API_FUNCTIONS) await m.query(`GRANT EXECUTE ON FUNCTION public.${fn} TO ${role}`);
  });
}

/** Role name of a postgres:// URL. */
export function roleOf(url: string): string {
  return decodeURIComponent(new URL(url).username);
}
