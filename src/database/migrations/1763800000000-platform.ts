import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Row-level security helpers and the companies table.
 *
 * `app_current_company()` reads the transaction-local `app.company_id` that the tenant
 * transaction sets; unset, it is NULL and every tenant policy matches nothing.
 * `app_enable_tenant_rls(table, column)` is how every tenant table is protected:
 * RLS enabled and forced (the table owner is subject to it too), a tenant policy for
 * everyone, and an unrestricted policy for the schema owner, who runs migrations, the CLI
 * and seeds. The API role is never the schema owner (checked at start).
 */
export class Platform1763800000000 implements MigrationInterface {
  name = 'Platform1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION app_current_company() RETURNS bigint
        LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT NULLIF(current_setting('app.company_id', true), '')::bigint $$`);
    await q.query(`
      CREATE FUNCTION app_enable_tenant_rls(tbl regclass, company_column text) RETURNS void
        LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
        EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', tbl);
        EXECUTE format('CREATE POLICY tenant_isolation ON %s USING (%I = app_current_company())', tbl, company_column);
        EXECUTE format('CREATE POLICY schema_owner_all ON %s TO %I USING (true) WITH CHECK (true)', tbl, current_user);
      END $$`);
    await q.query(`
      CREATE TABLE companies (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        api_access boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`SELECT app_enable_tenant_rls('companies', 'id')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE companies');
    await q.query('DROP FUNCTION app_enable_tenant_rls(regclass, text)');
    await q.query('DROP FUNCTION app_current_company()');
  }
}
