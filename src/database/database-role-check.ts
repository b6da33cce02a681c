import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MIGRATIONS_TABLE } from './data-source-options';
import {
  APPEND_ONLY_TABLES,
  AUDIT_PARTITION,
  CREDENTIAL_TABLES,
  OWNER_ONLY_TABLES,
  tablePrivilegesOf,
  WEBHOOK_ADMIN_TABLES,
} from './schema-privileges';

export interface RolePosture {
  role: string;
  superuser: boolean;
  bypassRls: boolean;
  /** Owner (or member of the owner) of a row-level-secured table: its owner policy lets it see every tenant. */
  ownsTenantTables: boolean;
  /** Privileges beyond what the API needs, each named (e.g. `TEMPORARY on the database`, `UPDATE on recordings`). */
  excess: string[];
}

const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];

/** What the API role may do on each table: read the data, append to the trail, manage the company's webhooks, nothing else. */
function allowedOn(table: string): readonly string[] {
  // Column privileges are not table privileges (has_table_privilege does not count them): only the table-wide ones are allowed here.
  if (WEBHOOK_ADMIN_TABLES[table]) return tablePrivilegesOf(WEBHOOK_ADMIN_TABLES[table]);
  if (CREDENTIAL_TABLES.includes(table) || OWNER_ONLY_TABLES.includes(table) || table === MIGRATIONS_TABLE || AUDIT_PARTITION.test(table))
    return [];
  return APPEND_ONLY_TABLES.includes(table) ? ['INSERT'] : ['SELECT'];
}

/** What reads the posture: a data source, or anything with its `query` (a standby's pool, read-replicas.ts). */
type Queryable = Pick<DataSource, 'query'>;

export async function readRolePosture(dataSource: Queryable): Promise<RolePosture> {
  const [row] = await dataSource.query(`
    SELECT r.rolname AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypass_rls, r.rolcreaterole AS create_role, r.rolcreatedb AS create_db,
      EXISTS (
        SELECT 1 FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relrowsecurity
          AND pg_has_role(current_user, c.relowner, 'MEMBER')
      ) AS owns_tenant_tables,
      has_database_privilege(current_user, current_database(), 'TEMPORARY') AS temp,
      has_database_privilege(current_user, current_database(), 'CREATE') AS create_schema,
      has_schema_privilege(current_user, 'public', 'CREATE') AS create_in_public
    FROM pg_roles r WHERE r.rolname = current_user`);
  const tables: Array<{ name: string; privileges: string[] }> = await dataSource.query(
    `SELECT c.relname AS name, ARRAY(SELECT p FROM unnest($1::text[]) p WHERE has_table_privilege(current_user, c.oid, p)) AS privileges
     FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
    [TABLE_PRIVILEGES],
  );
  const excess = [
    row.create_role && 'CREATEROLE',
    row.create_db && 'CREATEDB',
    row.temp && 'TEMPORARY on the database',
    row.create_schema && 'CREATE on the database',
    row.create_in_public && 'CREATE on schema public',
    ...tables.flatMap((t) => t.privileges.filter((p) => !allowedOn(t.name).includes(p)).map((p) => `${p} on ${t.name}`)),
  ].filter((x): x is string => Boolean(x));
  return {
    role: row.role,
    superuser: row.superuser,
    bypassRls: row.bypass_rls,
    ownsTenantTables: row.owns_tenant_tables,
    excess,
  };
}

/** `max_prepared_transactions` of the server: above 0, transactions may be prepared (two-phase commit). */
export async function readMaxPreparedTransactions(dataSource: DataSource): Promise<number> {
  const [row] = await dataSource.query('SHOW max_prepared_transactions');
  return Number(row.max_prepared_transactions);
}

/**
 * Why the service does not start on a server that allows prepared transactions (null when it
 * does not, at 0). A prepared transaction survives a restart of the server; the change feed's
 * entries are ordered by the server's life (the epoch) first, and readers move on to the new
 * life's entries once it began. One committed after the restart commits entries of the old
 * epoch, below the position readers have already passed: no reader would ever see them.
 */
export function preparedTransactionsRefusal(maxPreparedTransactions: number): string | null {
  if (!(maxPreparedTransactions > 0)) return null;
  return (
    `THE DATABASE ALLOWS PREPARED TRANSACTIONS (max_prepared_transactions = ${maxPreparedTransactions}). Refusing to start: ` +
    'a prepared (two-phase) transaction outlives a restart of the server, and the change feed cannot order a transaction that ' +
    'outlives a server life (committed after the restart, its changes land in an epoch readers have already passed, and no ' +
    'client would ever see them). Set max_prepared_transactions = 0 (postgresql.conf, or ALTER SYSTEM SET ' +
    'max_prepared_transactions = 0) and restart PostgreSQL; first COMMIT PREPARED or ROLLBACK PREPARED what pg_prepared_xacts lists.'
  );
}

/**
 * Row-level security is the second wall between tenants; it is only a wall if the API's role
 * cannot step around it, and the API's role holds nothing it does not need (`npm run
 * migration:run` grants exactly that). A role that holds more is refused at start, in every
 * environment and for an external DATABASE_URL too, with what to revoke. So is a server that
 * allows prepared transactions (preparedTransactionsRefusal). The API and the worker run it.
 */
@Injectable()
export class DatabaseRoleCheck implements OnApplicationBootstrap {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    // The server's settings first (the API and the worker both run this check): see preparedTransactionsRefusal.
    const prepared = preparedTransactionsRefusal(await readMaxPreparedTransactions(this.dataSource));
    if (prepared) throw new DatabaseRoleError(prepared);
    const refusal = rolePostureRefusal(await readRolePosture(this.dataSource));
    if (refusal) throw new DatabaseRoleError(refusal);
  }
}

/** Why the service must not read as a role of this posture (null: it may), with what to do about it. */
export function rolePostureRefusal(posture: RolePosture): string | null {
  const bypass = [
    posture.superuser && 'is a superuser',
    posture.bypassRls && 'has BYPASSRLS',
    posture.ownsTenantTables && 'owns the tenant tables (use a separate API role, see MIGRATION_DATABASE_URL)',
  ].filter(Boolean);
  if (bypass.length) {
    return `DATABASE ROLE "${posture.role}" CAN BYPASS ROW-LEVEL SECURITY: it ${bypass.join(', ')}. Refusing to start: tenant isolation would rest on application filters alone.`;
  }
  if (posture.excess.length) {
    return (
      `DATABASE ROLE "${posture.role}" HOLDS MORE THAN THE API NEEDS: ${posture.excess.join(', ')}. Refusing to start. ` +
      'Run `npm run migration:run` as the schema owner (it grants exactly SELECT on data tables and INSERT on audit_events, and revokes TEMPORARY), or revoke these by hand.'
    );
  }
  return null;
}

/** The API's database role may do more than it should, or the server allows what the service cannot handle: the service does not start. */
export class DatabaseRoleError extends Error {}
