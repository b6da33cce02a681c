import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints through the API (docs/API.md, "Managing your webhooks"): the integrator's
 * own description, pause (`enabled`) and `updated_at` on an endpoint; deliveries under row-level
 * security through their endpoint's company (the API role now reads and writes both tables in the
 * company's tenant transaction; schema-privileges.ts grants exactly that); and the idempotency
 * keys of creates, kept 24 h, one per client and key, the first answer sealed (it holds a secret).
 */
export class WebhookEndpointsApi1766800000000 implements MigrationInterface {
  name = 'WebhookEndpointsApi1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN description text CHECK (description IS NULL OR length(description) <= 200),
        ADD COLUMN enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    // A delivery belongs to its endpoint's company: the tenant policy reaches it through the endpoint.
    await q.query('ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY');
    await q.query('ALTER TABLE webhook_deliveries FORCE ROW LEVEL SECURITY');
    await q.query(`
      CREATE POLICY tenant_isolation ON webhook_deliveries
        USING (EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.company_id = app_current_company()))`);
    await q.query('CREATE POLICY schema_owner_all ON webhook_deliveries TO CURRENT_USER USING (true) WITH CHECK (true)');
    await q.query(`
      CREATE TABLE idempotency_keys (
        company_id bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
        client_id text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        operation text NOT NULL,
        request_hash text NOT NULL,
        answer text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (company_id, client_id, key)
      )`);
    await q.query('CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)');
    await q.query(`SELECT app_enable_tenant_rls('idempotency_keys', 'company_id')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
    await q.query('DROP POLICY schema_owner_all ON webhook_deliveries');
    await q.query('DROP POLICY tenant_isolation ON webhook_deliveries');
    await q.query('ALTER TABLE webhook_deliveries NO FORCE ROW LEVEL SECURITY');
    await q.query('ALTER TABLE webhook_deliveries DISABLE ROW LEVEL SECURITY');
    await q.query('ALTER TABLE webhook_endpoints DROP COLUMN updated_at, DROP COLUMN enabled, DROP COLUMN description');
  }
}
