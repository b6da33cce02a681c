import { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { FeedPosition } from '../../src/changes/changes.repository';
import { ChangeObject } from '../../src/changes/change.vocabulary';
import { mintId } from '../../src/common/ids/public-id';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { OwnerPool } from '../../src/database/owner-pool';
import { Metrics } from '../../src/metrics/metrics';
import { QUEUE } from '../../src/webhooks/webhook.vocabulary';
import { QUEUE_SCHEMA } from '../../src/webhooks/pg-boss-internals';
import { WebhookDeliveries } from '../../src/webhooks/webhook-deliveries.repository';
import { EndpointRow, WebhookEndpoints } from '../../src/webhooks/webhook-endpoints.repository';
import { Job, WebhookQueue } from '../../src/webhooks/webhook-queue';
import { createCompany } from '../support/factories';
import { assertTestDatabase, eventually, ownerDataSource } from '../support/test-app';

/**
 * The webhook state machine's statements raced by hand: two real transactions on the schema
 * owner's connections, each step awaited in the order that breaks a rule, the repository's and
 * the queue's own code on both sides (no SQL copied here). The queue is pg-boss itself.
 */

/** A job expires after 2 s here (the least a 200 ms attempt timeout allows), so a run can expire within a test. */
const ENV = { NODE_ENV: 'test', WEBHOOK_TIMEOUT_MS: '200', WEBHOOK_EXPIRE_SECONDS: '2' };
/** How long a test waits for a step that takes milliseconds (or, for an expiry, two seconds). */
const DEADLINE_MS = 15_000;
/** The advisory lock the gate below waits on. */
const GATE_LOCK = 7_106_001;

describe('webhook batches and job runs under concurrent transactions [waits]', () => {
  let owner: DataSource;
  let pool: OwnerPool;
  let endpoints: WebhookEndpoints;
  let deliveries: WebhookDeliveries;
  let queue: WebhookQueue;
  const made: string[] = [];
  const open: PoolClient[] = [];

  beforeAll(async () => {
    owner = await ownerDataSource();
    const config = loadConfig(ENV);
    const api = assertTestDatabase(process.env.TEST_DATABASE_URL);
    pool = new OwnerPool(
      new DatabaseUrls(api, assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), api),
      config,
      new Metrics(false),
    );
    endpoints = new WebhookEndpoints(pool);
    deliveries = new WebhookDeliveries(pool);
    queue = new WebhookQueue(pool, config, deliveries);
    await queue.start(false); // pg-boss's schema, which the lease rule reads
  });

  afterEach(async () => {
    for (const client of open.splice(0)) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  });

  afterAll(async () => {
    // What these tests queued and registered goes, so no later worker on this database runs it.
    if (made.length) {
      await pool.query(`DELETE FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND data->>'endpoint_id' = ANY ($2)`, [QUEUE, made]);
      await pool.query('DELETE FROM webhook_endpoints WHERE id = ANY ($1::bigint[])', [made]);
    }
    await queue?.stop();
    await pool?.onApplicationShutdown();
    await owner?.destroy();
  });

  async function newEndpoint(types: ChangeObject[] | null = null): Promise<EndpointRow> {
    const company = await createCompany(owner);
    const { id } = await endpoints.insert(pool, {
      publicId: mintId('webhookEndpoint'),
      companyId: company.id,
      url: 'http://127.0.0.1:9/hook',
      types,
      description: null,
      sealedSecret: 'sealed (never opened here)',
      position: await endpoints.head(),
    });
    made.push(id);
    return (await endpoints.byId(id))!;
  }

  /** A transaction of its own on one of the owner's connections, rolled back after the test unless committed. */
  async function begin(): Promise<PoolClient> {
    const client = await pool.pool.connect();
    open.push(client);
    await client.query('BEGIN');
    return client;
  }

  const positionOf = (e: Pick<EndpointRow, 'position_epoch' | 'position_xid' | 'position_seq'>): FeedPosition => [
    e.position_epoch,
    e.position_xid,
    e.position_seq,
  ];

  /** The dispatcher's steps for one endpoint up to its commit (WebhookDispatcher.dispatchEndpoint, with nothing read from the feed). */
  async function queueBatch(sql: PoolClient, endpoint: EndpointRow): Promise<string> {
    expect(await deliveries.takeIdle(sql, endpoint.id)).not.toBeNull();
    const job = await queue.insert(sql, { endpoint_id: endpoint.id });
    await deliveries.openBatch(sql, endpoint.id, job, positionOf(endpoint));
    return job;
  }

  /**
   * A test-only pause inside one statement: a restrictive row-security policy on
   * webhook_endpoints that, in a transaction which set `webhook_test.gate`, waits for the
   * advisory lock GATE_LOCK before it lets a row through. A statement of that transaction takes
   * its snapshot, reaches the endpoint's row and waits there; the repository's SQL is unchanged.
   */
  async function withGate(work: () => Promise<void>): Promise<void> {
    await pool.query(`
      CREATE OR REPLACE FUNCTION webhook_test_gate() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF current_setting('webhook_test.gate', true) = 'on' THEN PERFORM pg_advisory_xact_lock_shared(${GATE_LOCK}); END IF;
        RETURN true;
      END $$`);
    await pool.query('CREATE POLICY webhook_test_gate ON webhook_endpoints AS RESTRICTIVE FOR SELECT USING (webhook_test_gate())');
    try {
      await work();
    } finally {
      for (const client of open.splice(0)) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
      }
      await pool.query('DROP POLICY webhook_test_gate ON webhook_endpoints');
      await pool.query('DROP FUNCTION webhook_test_gate()');
    }
  }

  /** Whether the backend `pid` waits on a lock (of `type`, or any). */
  async function waitsOnLock(pid: number, type?: string): Promise<boolean> {
    const { rows } = await pool.query('SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted AND ($2::text IS NULL OR locktype = $2)', [
      pid,
      type ?? null,
    ]);
    return rows.length > 0;
  }

  const pidOf = async (sql: PoolClient): Promise<number> =>
    (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

  /** The job's row in pg-boss. */
  async function jobRow(id: string): Promise<{ state: string; retry_count: number; due: boolean }> {
    const { rows } = await pool.query(
      `SELECT state, retry_count, start_after < now() AS due FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND id = $2`,
      [QUEUE, id],
    );
    return rows[0];
  }

  it('takeIdle does not take an endpoint whose batch another dispatcher committed while the statement ran', async () => {
    const endpoint = await newEndpoint();
    await withGate(async () => {
      const first = await begin();
      const second = await begin();
      // The first dispatcher holds the gate until it commits, so the second's statement resumes just after that commit.
      await first.query('SELECT pg_advisory_xact_lock($1)', [GATE_LOCK]);
      const job = await queueBatch(first, endpoint);
      await second.query(`SELECT set_config('webhook_test.gate', 'on', true)`);
      const pid = await pidOf(second);
      // The second looks while the first still holds the row (its snapshot sees the endpoint idle) ...
      const taken = deliveries.takeIdle(second, endpoint.id);
      taken.catch(() => undefined); // awaited below
      await eventually(() => waitsOnLock(pid, 'advisory'), DEADLINE_MS);
      // ... and gets to lock the row only once the first committed its batch.
      await first.query('COMMIT');
      expect(await taken).toBeNull();
      expect((await endpoints.byId(endpoint.id))!.batch_job).toBe(job);
    });
  });

  it('takeIdle skips an endpoint another dispatcher holds', async () => {
    const endpoint = await newEndpoint();
    const first = await begin();
    const second = await begin();
    await queueBatch(first, endpoint);
    expect(await deliveries.takeIdle(second, endpoint.id)).toBeNull();
  });

  it('the sweep past unfollowed types leaves alone an endpoint whose batch was committed while the sweep waited for its row', async () => {
    // Follows meetings only, and its company has none: the sweep moves it to the horizon whenever its batch is idle.
    const endpoint = await newEndpoint(['meeting']);
    const first = await begin();
    const pid = await pidOf(first);
    const job = await queueBatch(first, endpoint);
    let settled = false;
    const sweep = deliveries.skipUnfollowed().finally(() => (settled = true));
    sweep.catch(() => undefined); // awaited below
    // The sweep waits for the row the first holds (or, when it does not wait, has already gone by).
    await eventually(async () => {
      if (settled) return true;
      const { rows } = await pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 AND wait_event_type = 'Lock'`,
        [pid],
      );
      return rows.length > 0;
    }, DEADLINE_MS);
    await first.query('COMMIT');
    await sweep;
    const after = (await endpoints.byId(endpoint.id))!;
    expect(after.batch_job).toBe(job);
    expect(positionOf(after)).toEqual(positionOf(endpoint));
    // Once the batch is closed the endpoint is idle, and the same sweep does move it: the endpoint above was one it would move.
    await pool.transaction((sql) => deliveries.closeBatch(sql, endpoint.id, job));
    expect(await deliveries.skipUnfollowed()).toBeGreaterThan(0);
    expect(positionOf((await endpoints.byId(endpoint.id))!)).not.toEqual(positionOf(endpoint));
  });

  it('a run that expired and came back is not failed by the earlier run', async () => {
    const endpoint = await newEndpoint();
    const id = await pool.transaction((sql) => queue.insert(sql, { endpoint_id: endpoint.id }));
    // Ahead of any job an earlier file left in this database's queue, so the fetches below get this one.
    await pool.query(`UPDATE ${QUEUE_SCHEMA}.job SET priority = 1 WHERE name = $1 AND id = $2`, [QUEUE, id]);
    const [earlier] = await queue.fetch(1);
    expect(earlier).toMatchObject({ id, run: 0 });
    // pg-boss's own expiry (what a supervising worker runs) hands the job back once it ran past its 2 s ...
    const boss = (await queue.start(false)) as unknown as { expire(): Promise<void> };
    await eventually(async () => {
      await boss.expire();
      return (await jobRow(id)).state === 'retry';
    }, DEADLINE_MS);
    // ... and its next fetch starts the newer run, after the retry delay.
    let later: Job | undefined;
    await eventually(async () => {
      if ((await jobRow(id)).due) [later] = await queue.fetch(1);
      return later !== undefined;
    }, DEADLINE_MS);
    expect(later).toMatchObject({ id, run: 1 });

    // The earlier run's bookkeeping failed: the runner hands its job back to pg-boss's retry.
    await queue.fail(earlier, new Error('bookkeeping failed'));
    expect(await jobRow(id)).toMatchObject({ state: 'active', retry_count: 1 });
    // The newer run can.
    await queue.fail(later!, new Error('bookkeeping failed'));
    expect(await jobRow(id)).toMatchObject({ state: 'retry', retry_count: 1 });
  });
});
