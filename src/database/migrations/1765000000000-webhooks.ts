import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: endpoints an admin registers for a company, and one delivery record per event sent
 * to one of them. Both are the admin side's tables (like the credentials): the API role gets no
 * privilege on them (schema-privileges.ts), and the worker and the CLI reach them as the schema
 * owner. The change log stays the source of the events: an endpoint keeps its position in its
 * company's feed (`position_xid`, `position_seq`, a feed position like a cursor's), and the
 * dispatcher moves it forward in the transaction that queues the deliveries, so an entry is
 * queued once however many workers run.
 *
 * - `secret` and `previous_secret` are the signing secrets encrypted with WEBHOOK_SECRET_KEY
 *   (AES-256-GCM, bound to the endpoint's public id); a rotation keeps the previous one signing
 *   until `previous_secret_until`.
 * - The deliveries are the truth of what is owed: a pending delivery is either due at
 *   `next_attempt_at` (a retry, a replay, an attempt put back) or claimed by a batch
 *   (`claimed_at`, `next_attempt_at` null). The dispatcher builds each batch from the endpoint's
 *   due deliveries first, then from its feed, and queues it as one job.
 * - `batch_pending` (since `batch_claimed_at`) is set while that batch is queued or being sent:
 *   one batch at a time per endpoint, first attempts, retries and replays alike, so a slow or
 *   dead receiver holds at most one worker slot, and the feed and the delivery rows, not the
 *   queue, hold what waits. A batch or claim older than three job expiries is taken as lost and
 *   dispatched again (at least once).
 * - `state` becomes `failing` (since `failing_since`) when a delivery used up its retries, and
 *   `active` again on the next success; nothing is dropped either way.
 */
export class Webhooks1765000000000 implements MigrationInterface {
  name = 'Webhooks1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
        url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
        types text[] CHECK (types IS NULL OR cardinality(types) > 0),
        state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'failing')),
        failing_since timestamptz,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until timestamptz,
        position_xid xid8 NOT NULL,
        position_seq bigint NOT NULL DEFAULT 0,
        batch_pending boolean NOT NULL DEFAULT false,
        batch_claimed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((state = 'failing') = (failing_since IS NOT NULL)),
        CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL)),
        CHECK (batch_pending = (batch_claimed_at IS NOT NULL))
      )`);
    await q.query('CREATE INDEX webhook_endpoints_company ON webhook_endpoints (company_id)');
    // A tenant table like every table with a company: forced row-level security (the owner's policy
    // lets the worker and the CLI see every endpoint; the API role has no privilege on it at all).
    await q.query(`SELECT app_enable_tenant_rls('webhook_endpoints', 'company_id')`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE DEFAULT app_public_id('whd_'),
        endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        change_id text NOT NULL,
        event_type text NOT NULL,
        committed_at timestamptz NOT NULL,
        payload text NOT NULL,
        replay boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status integer,
        last_error text,
        last_latency_ms integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        claimed_at timestamptz,
        delivered_at timestamptz
      )`);
    await q.query('CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC)');
    await q.query('CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)');
    // What the dispatcher looks for: an endpoint's pending deliveries, by when they are due.
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
  }
}
