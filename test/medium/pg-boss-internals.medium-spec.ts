import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { OwnerPool } from '../../src/database/owner-pool';
import { Metrics } from '../../src/metrics/metrics';
import { isCurrentRun, jobHolds, JobRun, QUEUE_SCHEMA, runOf } from '../../src/webhooks/pg-boss-internals';
import { QUEUE } from '../../src/webhooks/webhook.vocabulary';
import { WebhookDeliveries } from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookQueue } from '../../src/webhooks/webhook-queue';
import { assertTestDatabase, eventually } from '../support/test-app';

/**
 * What src/webhooks/pg-boss-internals.ts assumes of pg-boss beyond its API, checked against the
 * installed version: its job table and columns, the order of its job states, and what
 * `retry_count` counts. Jobs are made and moved with pg-boss's own API (expiry aside: its
 * maintenance step, as a supervising worker runs it); only the adapter reads the table. A pg-boss
 * upgrade that changes any of it fails here.
 */

/** How long a test waits for an expiry (a second here) and pg-boss's next look at it. */
const DEADLINE_MS = 15_000;

describe('pg-boss internals the webhook queue reads [waits]', () => {
  let pool: OwnerPool;
  let queue: WebhookQueue;
  let boss: PgBoss;
  const made: string[] = [];

  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    const api = assertTestDatabase(process.env.TEST_DATABASE_URL);
    pool = new OwnerPool(
      new DatabaseUrls(api, assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), api),
      config,
      new Metrics(false),
    );
    queue = new WebhookQueue(pool, config, new WebhookDeliveries(pool));
    boss = await queue.start(false); // installs pg-boss's schema and the queue, as a worker does
  });

  afterAll(async () => {
    if (made.length) await boss.deleteJob(QUEUE, made); // so no later worker on this database runs them
    await queue?.stop();
    await pool?.onApplicationShutdown();
  });

  /** A job of the webhook queue, ahead of any an earlier file left (priority), due again at once after a failure. */
  async function newJob(options: Partial<PgBoss.JobInsert> = {}): Promise<string> {
    const id = randomUUID();
    await boss.insert([{ id, name: QUEUE, data: { endpoint_id: '0' }, priority: 10, retryLimit: 5, retryDelay: 0, ...options }]);
    made.push(id);
    return id;
  }

  /** Starts a run of the job, which must be the one fetched; the run as the adapter reads it. */
  async function fetchRun(id: string): Promise<JobRun> {
    const [job] = await boss.fetch(QUEUE, { batchSize: 1, includeMetadata: true });
    expect(job?.id).toBe(id);
    return runOf(job);
  }

  const stateOf = async (id: string) => (await boss.getJobById(QUEUE, id))?.state;
  const holds = async (id: string) => (await pool.query<{ holds: boolean }>(`SELECT ${jobHolds('$1::uuid')} AS holds`, [id])).rows[0].holds;
  const current = (run: JobRun) => pool.transaction((sql) => isCurrentRun(sql, run));

  it('keeps its jobs in the job table of its schema, with the columns the adapter reads', async () => {
    const { rows } = await pool.query<{ column: string; type: string }>(
      `SELECT a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
       WHERE a.attrelid = to_regclass($1) AND a.attname = ANY ($2) AND NOT a.attisdropped ORDER BY a.attname`,
      [`${QUEUE_SCHEMA}.job`, ['id', 'name', 'state', 'retry_count']],
    );
    expect(rows).toEqual([
      { column: 'id', type: 'uuid' },
      { column: 'name', type: 'text' },
      { column: 'retry_count', type: 'integer' },
      { column: 'state', type: `${QUEUE_SCHEMA}.job_state` },
    ]);
  });

  it('orders its job states so that waiting, waiting to retry and running come before completed, and the settled ones after', async () => {
    const { rows } = await pool.query<{ state: string }>(
      `SELECT e.enumlabel AS state FROM pg_attribute a JOIN pg_enum e ON e.enumtypid = a.atttypid
       WHERE a.attrelid = to_regclass($1) AND a.attname = 'state' ORDER BY e.enumsortorder`,
      [`${QUEUE_SCHEMA}.job`],
    );
    expect(rows.map((r) => r.state)).toEqual(['created', 'retry', 'active', 'completed', 'cancelled', 'failed']);
  });

  it('holds a job while it waits, waits to retry or runs; not once it completed', async () => {
    const id = await newJob();
    expect([await stateOf(id), await holds(id)]).toEqual(['created', true]);
    await fetchRun(id);
    expect([await stateOf(id), await holds(id)]).toEqual(['active', true]);
    await boss.fail(QUEUE, id, { message: 'bookkeeping failed' });
    expect([await stateOf(id), await holds(id)]).toEqual(['retry', true]);
    await fetchRun(id);
    await boss.complete(QUEUE, id);
    expect([await stateOf(id), await holds(id)]).toEqual(['completed', false]);
  });

  it('holds no job that was cancelled, failed for good or is gone', async () => {
    const cancelled = await newJob();
    await boss.cancel(QUEUE, cancelled);
    expect([await stateOf(cancelled), await holds(cancelled)]).toEqual(['cancelled', false]);
    const failed = await newJob({ retryLimit: 0 });
    await fetchRun(failed);
    await boss.fail(QUEUE, failed, { message: 'gave up' });
    expect([await stateOf(failed), await holds(failed)]).toEqual(['failed', false]);
    expect(await holds(randomUUID())).toBe(false);
  });

  it('counts the runs of a job that failed in retry_count, and only the newest run is current', async () => {
    const id = await newJob();
    const first = await fetchRun(id);
    expect(first).toEqual({ id, run: 0 });
    expect([await current(first), await current({ id, run: 1 })]).toEqual([true, false]);
    await boss.fail(QUEUE, id, { message: 'bookkeeping failed' });
    expect(await current(first)).toBe(false); // waiting to retry: no run is current
    const second = await fetchRun(id);
    expect(second).toEqual({ id, run: 1 });
    expect([await current(first), await current(second)]).toEqual([false, true]);
  });

  it('counts the run of a job that expired in retry_count too: the expired run is no longer current', async () => {
    const id = await newJob({ expireInSeconds: 1 });
    const first = await fetchRun(id);
    // pg-boss's expiry, the step a supervising worker runs every maintenance interval.
    const expire = () => (boss as unknown as { expire(): Promise<void> }).expire();
    await eventually(async () => {
      await expire();
      return (await stateOf(id)) === 'retry';
    }, DEADLINE_MS);
    expect(await holds(id)).toBe(true); // an expired job still holds its batch
    const second = await fetchRun(id);
    expect(second).toEqual({ id, run: first.run + 1 });
    expect([await current(first), await current(second)]).toEqual([false, true]);
  });
});
