import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs src/auth/token-secrets-sql.ts as it was on 2026-11-27: the literal statements, never
 * edited again.
 *
 * What changed: tokens record the secret presented for them, and every request reads which of
 * its client's secrets are valid now (`app_client_token_secrets`), so ending a secret's grace
 * (`client:expire-previous-secret`) ends the tokens it issued, and only those.
 */
export class TokenSecrets1766500000000 implements MigrationInterface {
  name = 'TokenSecrets1766500000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION IF EXISTS app_client_token_secrets(text)');
  }
}

/** Today's function. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_client_token_secrets(client_public_id text) RETURNS text[]
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN ARRAY(
    SELECT encode(substr(sha256(s.secret_hash), 1, 8), 'hex') FROM client_secrets s JOIN api_clients c ON c.id = s.client_id
    WHERE c.public_id = client_public_id AND (s.expires_at IS NULL OR s.expires_at > now())
    ORDER BY s.created_at DESC LIMIT 2
  );
END $$`,
  `REVOKE ALL ON FUNCTION app_client_token_secrets(text) FROM PUBLIC`,
];
