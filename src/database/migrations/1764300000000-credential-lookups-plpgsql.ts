import { MigrationInterface, QueryRunner } from 'typeorm';

const STATE_COLUMNS = `client_name text, company_id bigint, company_public_id text, company_name text,
  api_access boolean, status text, scopes text[], cidrs text[], credential_version integer`;

const STATE_SELECT = `c.name, co.id, co.public_id, co.name, co.api_access, c.status, c.scopes, c.cidrs, c.credential_version`;

const SECRETS = `ARRAY(
  SELECT s.secret_hash FROM client_secrets s
  WHERE s.client_id = c.id AND (s.expires_at IS NULL OR s.expires_at > now())
  ORDER BY s.created_at DESC LIMIT 2
)`;

/**
 * The two credential lookups every request and every token request make, rewritten from SQL
 * to PL/pgSQL with the same signatures, results and privileges. A SQL function that cannot be
 * inlined (SECURITY DEFINER, SET search_path) is planned again at every call; PL/pgSQL keeps
 * its statement's plan for the session, which cut the lookup from about 0.27 ms to a fraction.
 */
export class CredentialLookupsPlpgsql1764300000000 implements MigrationInterface {
  name = 'CredentialLookupsPlpgsql1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION app_client_state(client_public_id text)
        RETURNS TABLE (${STATE_COLUMNS})
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$
        #variable_conflict use_column
        BEGIN
          RETURN QUERY SELECT ${STATE_SELECT}
          FROM api_clients c JOIN companies co ON co.id = c.company_id
          WHERE c.public_id = client_public_id;
        END
        $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION app_client_credentials(client_public_id text)
        RETURNS TABLE (${STATE_COLUMNS}, secret_hashes bytea[])
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$
        #variable_conflict use_column
        BEGIN
          RETURN QUERY SELECT ${STATE_SELECT}, ${SECRETS}
          FROM api_clients c JOIN companies co ON co.id = c.company_id
          WHERE c.public_id = client_public_id;
        END
        $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION app_client_state(client_public_id text)
        RETURNS TABLE (${STATE_COLUMNS})
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$ SELECT ${STATE_SELECT} FROM api_clients c JOIN companies co ON co.id = c.company_id WHERE c.public_id = client_public_id $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION app_client_credentials(client_public_id text)
        RETURNS TABLE (${STATE_COLUMNS}, secret_hashes bytea[])
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$ SELECT ${STATE_SELECT}, ${SECRETS} FROM api_clients c JOIN companies co ON co.id = c.company_id WHERE c.public_id = client_public_id $$`);
  }
}
