import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MIGRATIONS_TABLE } from './data-source-options';
import { APPEND_ONLY_TABLES, AUDIT_PARTITION, CREDENTIAL_TABLES, OWNER_ONLY_TABLES } from './schema-privileges';

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

/** What the API role may do on each table: read the data, append to the trail, nothing else. */
function allowedOn(table: string): string[] {
  if (CREDENTIAL_TABLES.includes(table) || OWNER_ONLY_TABLES.includes(table) || table === MIGRATIONS_TABLE || AUDIT_PARTITION.test(table))
    return [];
  return APPEND_ONLY_TABLES.includes(table) ? ['INSERT'] : ['SELECT'];
}

export async function readRolePosture(dataSource: DataSource): Promise<RolePosture> {
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

/**
 * Row-level security is the second wall between tenants; it is only a wall if the API's role
 * cannot step around it, and the API's role holds nothing it does not need (`npm run
 * migration:run` grants exactly that). A role that holds more is refused at start, in every
 * environment and for an external DATABASE_URL too, with what to revoke.
 */
@Injectable()
export class DatabaseRoleCheck implements OnApplicationBootstrap {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    const posture = await readRolePosture(this.dataSource);
    const bypass = [
      posture.superuser && 'is a superuser',
      posture.bypassRls && 'has BYPASSRLS',
      posture.ownsTenantTables && 'owns the tenant tables (use a separate API role, see MIGRATION_DATABASE_URL)',
    ].filter(Boolean);
    if (bypass.length) {
      throw new DatabaseRoleError(
        `DATABASE ROLE "${posture.role}" CAN BYPASS ROW-LEVEL SECURITY: it ${bypass.join(', ')}. Refusing to start: tenant isolation would rest on application filters alone.`,
      );
    }
    if (posture.excess.length) {
      throw new DatabaseRoleError(
        `DATABASE ROLE "${posture.role}" HOLDS MORE THAN THE API NEEDS: ${posture.excess.join(', ')}. Refusing to start. ` +
          'Run `npm run migration:run` as the schema owner (it grants exactly SELECT on data tables and INSERT on audit_events, and revokes TEMPORARY), or revoke these by hand.',
      );
    }
  }
}

/** The API's database role may do more than it should: the service does not start. */
export class DatabaseRoleError extends Error {}
