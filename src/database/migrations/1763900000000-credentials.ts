import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API clients (credentials of a company) and their secrets.
 *
 * The API role gets no privilege on either table (see CREDENTIAL_TABLES): a token request
 * arrives before its company is known, so it could not read them under row-level security
 * anyway. It reaches exactly one client by its public id through two SECURITY DEFINER
 * functions instead, which return that client's state and never list anything. Both tables
 * still carry `company_id` under forced row-level security, like every tenant table.
 *
 * Indexes: `api_clients_public_id_key` serves both functions (one indexed lookup per
 * request); `api_clients_company_created_idx` serves `client:list`;
 * `client_secrets_client_created_idx` serves the secrets of a client; the partial unique
 * index allows one current (non-expiring) secret per client.
 */
export class Credentials1763900000000 implements MigrationInterface {
  name = 'Credentials1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_clients (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL CONSTRAINT api_clients_public_id_key UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'revoked')),
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
        cidrs text[] NOT NULL DEFAULT '{}',
        credential_version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX api_clients_company_created_idx ON api_clients (company_id, created_at, id)');
    await q.query(`SELECT app_enable_tenant_rls('api_clients', 'company_id')`);

    await q.query(`
      CREATE TABLE client_secrets (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        client_id bigint NOT NULL REFERENCES api_clients (id) ON DELETE CASCADE,
        company_id bigint NOT NULL REFERENCES companies (id),
        secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz
      )`);
    await q.query('CREATE INDEX client_secrets_client_created_idx ON client_secrets (client_id, created_at DESC)');
    await q.query('CREATE UNIQUE INDEX client_secrets_one_current_idx ON client_secrets (client_id) WHERE expires_at IS NULL');
    await q.query(`SELECT app_enable_tenant_rls('client_secrets', 'company_id')`);

    // What every authenticated request checks: one row by the client's public id.
    await q.query(`
      CREATE FUNCTION app_client_state(client_public_id text)
        RETURNS TABLE (
          client_name text, company_id bigint, company_public_id text, company_name text,
          api_access boolean, status text, scopes text[], cidrs text[], credential_version integer
        )
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$
          SELECT c.name, co.id, co.public_id, co.name, co.api_access, c.status, c.scopes, c.cidrs, c.credential_version
          FROM api_clients c JOIN companies co ON co.id = c.company_id
          WHERE c.public_id = client_public_id
        $$`);
    // What the token endpoint checks: the same, plus the hashes of the secrets valid now.
    await q.query(`
      CREATE FUNCTION app_client_credentials(client_public_id text)
        RETURNS TABLE (
          client_name text, company_id bigint, company_public_id text, company_name text,
          api_access boolean, status text, scopes text[], cidrs text[], credential_version integer,
          secret_hashes bytea[]
        )
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$
          SELECT c.name, co.id, co.public_id, co.name, co.api_access, c.status, c.scopes, c.cidrs, c.credential_version,
            ARRAY(
              SELECT s.secret_hash FROM client_secrets s
              WHERE s.client_id = c.id AND (s.expires_at IS NULL OR s.expires_at > now())
              ORDER BY s.created_at DESC LIMIT 2
            )
          FROM api_clients c JOIN companies co ON co.id = c.company_id
          WHERE c.public_id = client_public_id
        $$`);
    await q.query('REVOKE ALL ON FUNCTION app_client_state(text), app_client_credentials(text) FROM PUBLIC');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION app_client_credentials(text)');
    await q.query('DROP FUNCTION app_client_state(text)');
    await q.query('DROP TABLE client_secrets');
    await q.query('DROP TABLE api_clients');
  }
}
