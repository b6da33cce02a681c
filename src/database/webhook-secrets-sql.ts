/**
 * Today's SQL of a webhook secret's rotation, in its one current place: the function that moves
 * an endpoint's current secret to `previous_secret` and writes the new one, which the API role
 * may not do itself (it holds no SELECT on a secret column: schema-privileges.ts,
 * WEBHOOK_ADMIN_TABLES; the move reads the current secret). A migration installs it word for
 * word (1766800000001); test/medium/migrations.medium-spec.ts runs these statements on a fresh
 * database and expects no change.
 *
 * The function acts on the company of the transaction (`app.company_id`, which the tenant
 * transaction sets, and the CLI's scope too): another company's endpoint is not rotated. It
 * refuses (NULL) while a previous secret still signs, in the same statement, so two rotations at
 * once cannot both win. It returns until when the previous secret signs.
 */
export const ROTATE_SECRET_SQL: string[] = [
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

/** The function's signature, as GRANT and the privilege checks name it. */
export const ROTATE_SECRET_FUNCTION = 'app_rotate_webhook_secret(bigint, text, integer)';
