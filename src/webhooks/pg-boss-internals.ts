import PgBoss from 'pg-boss';
import { Sql } from '../database/owner-pool';
import { QUEUE } from './webhook.vocabulary';

/**
 * Everything this service reads of pg-boss beyond its API, in one place. The lease rule and the
 * current-run check must be judged inside our own statements and transactions, which pg-boss's
 * API cannot do, so they read its job table; pg-boss documents none of this, and
 * test/medium/pg-boss-internals.medium-spec.ts checks each assumption against the installed
 * version, so an upgrade that changes one fails there:
 * - the tables live in QUEUE_SCHEMA; `job` has one row per job, found by `name` and `id` (uuid);
 * - `state` is an enum ordered created < retry < active < completed < cancelled < failed: below
 *   `completed` a job is waiting, waiting to retry or running; from it on, it is settled (and a
 *   job archived or deleted has no row at all);
 * - `retry_count` counts a job's runs after its first: pg-boss adds one when it starts again a job
 *   that had started (it failed or expired), under the same id, and a job fetched with its
 *   metadata carries the new value as `retryCount`.
 */
export const QUEUE_SCHEMA = 'pgboss';

/** One run of one job: pg-boss counts a job's runs in `retry_count` (a run that expired comes back with the same id). */
export interface JobRun {
  id: string;
  run: number;
}

/** The run a job fetched with its metadata is. */
export const runOf = (job: PgBoss.JobWithMetadata<unknown>): JobRun => ({ id: job.id, run: job.retryCount });

/** SQL: whether the job whose id is the SQL expression `job` is waiting, waiting to retry or running in pg-boss. */
export const jobHolds = (job: string) =>
  `EXISTS (SELECT 1 FROM ${QUEUE_SCHEMA}.job j WHERE j.name = '${QUEUE}' AND j.id = ${job} AND j.state < 'completed')`;

/**
 * True when `run` is the job's current run (running, and not started again since), its row then
 * locked until the caller's transaction ends, so pg-boss's expiry cannot hand it on meanwhile.
 */
export async function isCurrentRun(sql: Sql, run: JobRun): Promise<boolean> {
  const { rows } = await sql.query(
    `SELECT 1 FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3 FOR UPDATE`,
    [QUEUE, run.id, run.run],
  );
  return rows.length > 0;
}
