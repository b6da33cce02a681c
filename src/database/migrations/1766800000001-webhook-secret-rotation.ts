import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs `app_rotate_webhook_secret` of src/database/webhook-secrets-sql.ts as it was on
 * 2026-11-28: the literal statements, never edited again. The API role rotates an endpoint's
 * secret through it, as it holds no SELECT on a secret column (the rotation reads the current one
 * to keep it as the previous); `migration:run` grants it EXECUTE.
 */
export class WebhookSecretRotation1766800000001 implements MigrationInterface {
  name = 'WebhookSecretRotation1766800000001';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION app_rotate_webhook_secret(bigint, text, integer)');
  }
}

const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_rotate_webhook_secret(p_endpoint bigint, p_sealed text, p_overlap_seconds integer) RETURNS timestamptz
  LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  UPDATE webhook_endpoints SET previous_secret = secret, secret = p_sealed,
    previous_secret_until = now() + make_interval(secs => p_overlap_seconds), updated_at = now()
  WHERE id = p_endpoint AND company_id = nullif(current_setting('app.company_id', true), '')::bigint
    AND NOT coalesce(previous_secret_until > now(), false)
  RETURNING previous_secret_until
$$`,
  `REVOKE ALL ON FUNCTION app_rotate_webhook_secret(bigint, text, integer) FROM PUBLIC`,
];
