import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `app_public_id(prefix)`: a public id minted inside PostgreSQL (bulk seeds insert millions of
 * rows in one statement) with the same form and the same method as `mintId` in the service:
 * prefix + the first 22 characters of the base64 text of 32 random bytes without `+`, `/` and
 * `=`, so each character is uniform over base62. The bytes are SHA-256 of two random UUIDs
 * (`gen_random_uuid`, PostgreSQL's strong random source, core since 13; no extension needed):
 * 244 random bits in, 22 × log2(62) ≈ 131 out. Names are qualified instead of a `SET search_path`
 * clause, which would cost every call a configuration change (8.4 µs an id against 5.3).
 */
export class PublicIdFunction1764400000000 implements MigrationInterface {
  name = 'PublicIdFunction1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION app_public_id(prefix text) RETURNS text
        LANGUAGE sql VOLATILE PARALLEL SAFE
        AS $$
          SELECT prefix || pg_catalog.left(pg_catalog.translate(pg_catalog.encode(pg_catalog.sha256(
            pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) || pg_catalog.uuid_send(pg_catalog.gen_random_uuid())), 'base64'),
            '+/=' || pg_catalog.chr(10), ''), 22)
        $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION app_public_id(text)');
  }
}
