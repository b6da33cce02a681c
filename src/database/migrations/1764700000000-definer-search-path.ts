import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SECURITY DEFINER credential lookups run with the owner's rights, so every name they use
 * must resolve to the owner's objects: `pg_temp` last in their search path (where it is not
 * named, PostgreSQL searches it first, and a role able to create temporary objects could shadow
 * a table or function the lookup uses). The API role also loses TEMP on the database (grants step).
 */
export class DefinerSearchPath1764700000000 implements MigrationInterface {
  name = 'DefinerSearchPath1764700000000';

  async up(q: QueryRunner): Promise<void> {
    for (const fn of ['app_client_state(text)', 'app_client_credentials(text)']) {
      await q.query(`ALTER FUNCTION ${fn} SET search_path = pg_catalog, public, pg_temp`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const fn of ['app_client_state(text)', 'app_client_credentials(text)']) {
      await q.query(`ALTER FUNCTION ${fn} SET search_path = pg_catalog, public`);
    }
  }
}
