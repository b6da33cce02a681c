import { Injectable } from '@nestjs/common';
import { FEED_HORIZON, FeedPosition, someEntry } from '../changes/changes.repository';
import { OwnerPool, Sql } from '../database/owner-pool';
import { iso, limitClause, pageOf } from '../database/sql';
import { ENDPOINT_COLUMNS, EndpointRow } from './webhook-endpoints.repository';
import { DeliveryStatus, EndpointState, TEST_EVENT_TYPE } from './webhook.vocabulary';
import { DeliveryRow, NewDelivery, Outcome, Sendable } from './webhook-delivery';
import { isCurrentRun, jobHolds, JobRun } from './pg-boss-internals';
import { IDEMPOTENCY_HOURS } from './idempotency-keys';

/**
 * THE LEASE RULE, the only one: job `job` holds what it was given (an endpoint's batch, the
 * deliveries in it) while pg-boss has it waiting, waiting to retry or running. It stops holding
 * when the job completes, which happens in the transaction that records its outcomes, or when the
 * queue lets it go (cancelled, failed for good, dropped after its keep time). How long a job waited
 * in the queue or ran never matters: an expired run is pg-boss's to hand to another worker, under
 * the same id, still holding its batch. `jobHolds` reads it from pg-boss's job table
 * (pg-boss-internals); these two judgements are its only uses.
 *
 * An endpoint (`e`) with no batch outstanding.
 */
const BATCH_IDLE = `(e.batch_job IS NULL OR NOT ${jobHolds('e.batch_job')})`;

/** The columns of a DeliveryRow (never the payload: the body is not shown, only what became of it). */
const DELIVERY_COLUMNS = `id::text AS id, public_id AS delivery_id, change_id, event_type, replay, status, attempts, last_status, last_error,
  last_latency_ms, ${iso('committed_at')} AS committed_at, ${iso('created_at')} AS created_at, ${iso('last_attempt_at')} AS last_attempt_at,
  ${iso('next_attempt_at')} AS next_attempt_at, ${iso('delivered_at')} AS delivered_at, job_id IS NOT NULL AS held`;

/**
 * A page of an endpoint's deliveries, newest first, below `$2` (an id; the largest bigint for the
 * first page), of the status `$3` when `filtered`: one statement per shape, each a range of one
 * index read in order (`webhook_deliveries_endpoint`, `webhook_deliveries_endpoint_status`), so
 * its plan is the same generic or not and its work is the page's, however long the history or
 * rare the status (bench/webhook-deliveries.ts). The order names the index's columns: ordered by
 * `id` alone (an output column too, as text: qualified here), the plan sorted the endpoint's whole
 * history for a page (450 ms beside 100,000 deliveries); and a single statement with `IS NULL OR`
 * conditions read it all in its generic plan.
 */
export const deliveriesPage = (filtered: boolean, take: number) => `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
  WHERE d.endpoint_id = $1 AND d.id < $2${filtered ? ' AND d.status = $3' : ''}
  ORDER BY d.endpoint_id, ${filtered ? 'd.status, ' : ''}d.id DESC ${limitClause(take)}`;

/** Where the first page starts below: every id. */
const ALL_IDS = '9223372036854775807';

/** A delivery (`d`) due for an attempt: its time has come, or the job it was given to no longer holds it. */
const DUE = `(d.status = 'pending' AND (d.next_attempt_at <= now() OR (d.job_id IS NOT NULL AND NOT ${jobHolds('d.job_id')})))`;

/**
 * A delivery (`d`) its endpoint (`e`) may be sent now: any while the endpoint is enabled, only a
 * test event while it is paused (the others wait for the resume; WorkerMetrics counts them).
 */
export const SENDABLE = `(e.enabled OR d.event_type = '${TEST_EVENT_TYPE}')`;

/**
 * The delivery state machine: every state and transition of a webhook delivery and of an
 * endpoint's batch, each one statement here. The services decide when; nothing else writes these
 * columns.
 *
 *   delivery:  pending ─due─▶ (held by job J) ─record─▶ delivered | failed | pending(due at its retry time)
 *                                     └──────putBack──▶ pending(due now, no attempt counted)
 *              held by J and J no longer holds (jobHolds) ─▶ due again, as if put back (at least once)
 *   endpoint:  idle ─openBatch(J)─▶ outstanding(J) ─closeBatch(J)─▶ idle
 *              outstanding(J) and J no longer holds ─▶ idle
 *
 * PAUSE (`enabled = false`, the API's PATCH; orthogonal to all of the above): a paused endpoint's
 * deliveries wait and none is dropped. The dispatcher neither reads its feed (its position stays,
 * so the entries wait in the feed) nor takes its due deliveries (`SENDABLE`: endpointsWithWork,
 * due), test events (`webhook.test`) excepted: those are sent to a paused endpoint too. Nothing is
 * taken away from a job: a batch queued before the pause committed is sent and settled as usual
 * (its failures then wait as retries), so a pause stops what is sent within one batch. Beyond that
 * batch and test events no attempt is made while paused, so no delivery runs out of its retries
 * (turns `failed`) meanwhile, however long the pause. A delivery that a lost job held
 * turns due as usual and waits like any other. Resume (the API's, in one statement:
 * `enabled = true`, `state = 'active'`, `failing_since` NULL, pending deliveries due later made due
 * now) needs nothing here: the next pass finds the deliveries due and the feed after the position.
 *
 * `pending` has two faces, told apart by which column is set (a check constraint keeps exactly
 * one): `next_attempt_at` (due then) or `job_id` (held). Only the job's current run may record,
 * put back, close or fail the job (`ownRun`, then statements that name the job): a run that
 * expired and was handed on finds the job no longer its own and writes nothing.
 */
@Injectable()
export class WebhookDeliveries {
  constructor(readonly db: OwnerPool) {}

  // The dispatcher's side.

  /**
   * Endpoints with something to dispatch: an idle batch, and either a delivery due that may be
   * sent now (SENDABLE: a paused endpoint's test events only) or, when enabled, an entry of their
   * company and types after their position and below the horizon (a paused endpoint's feed is not
   * looked at). One statement for every endpoint, so an idle dispatcher costs one query a poll;
   * ids only (the entries themselves are read in the tenant's own transaction, under row-level
   * security).
   */
  async endpointsWithWork(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT e.id::text AS id FROM webhook_endpoints e, (${FEED_HORIZON}) h
       WHERE ${BATCH_IDLE}
         AND (EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND ${DUE} AND ${SENDABLE})
              OR (e.enabled AND ${someEntry('e.company_id', 'e.types', ['e.position_epoch', 'e.position_xid', 'e.position_seq'])}))
       ORDER BY e.id`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Moves idle endpoints that follow some types only past the entries of other types (to the
   * horizon, when nothing of theirs lies before it), so their next look starts there. Only the
   * endpoints it could lock at once (lockEndpoints: one being dispatched waits for the next sweep),
   * judged idle after the lock.
   *
   * Paused endpoints are moved too, and that is harmless: an endpoint is moved only when no entry
   * of its types lies between its position and the horizon, so nothing it would receive is
   * passed; what waits for a paused endpoint (entries of its types) keeps it where it is.
   */
  async skipUnfollowed(): Promise<number> {
    return this.db.transaction(async (sql) => {
      const ids = await this.lockEndpoints(sql, `e.types IS NOT NULL AND ${BATCH_IDLE}`, []);
      if (!ids.length) return 0;
      const { rowCount } = await sql.query(
        `UPDATE webhook_endpoints e SET position_epoch = h.live, position_xid = h.horizon, position_seq = 0
         FROM (${FEED_HORIZON}) h
         WHERE e.id = ANY ($1::bigint[]) AND ${BATCH_IDLE} AND (e.position_epoch, e.position_xid) < (h.live, h.horizon)
           AND NOT ${someEntry('e.company_id', 'e.types', ['e.position_epoch', 'e.position_xid', 'e.position_seq'])}`,
        [ids],
      );
      return rowCount ?? 0;
    });
  }

  /**
   * The endpoint's row locked for building its next batch, when its batch is idle and no other
   * worker holds the row (lockEndpoints), judged after the lock; `paused` as of the lock (a pause
   * or resume committed meanwhile waits for this transaction: it updates the row).
   */
  async takeIdle(sql: Sql, id: string): Promise<(EndpointRow & { paused: boolean }) | null> {
    if (!(await this.lockEndpoints(sql, 'e.id = $1', [id])).length) return null;
    const { rows } = await sql.query<EndpointRow & { paused: boolean }>(
      `SELECT ${ENDPOINT_COLUMNS}, NOT e.enabled AS paused FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id
       WHERE e.id = $1 AND ${BATCH_IDLE}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks, until the caller's transaction ends, the endpoints that `where` (on `e`) picks and no
   * other transaction holds (SKIP LOCKED); their ids. Whether an endpoint is idle is judged in the
   * caller's next statement, never in the one that locks: a row that changed while the statement
   * ran is re-checked by PostgreSQL on its new version but with the statement's first snapshot,
   * so the job another dispatcher queued with that change would be invisible, its batch taken as
   * idle, and a second batch opened. A new statement (READ COMMITTED: a new snapshot) sees every
   * commit made before the lock was granted, and no one changes the row while it is held.
   */
  private async lockEndpoints(sql: Sql, where: string, params: unknown[]): Promise<string[]> {
    const { rows } = await sql.query<{ id: string }>(
      `SELECT e.id::text AS id FROM webhook_endpoints e WHERE ${where} FOR NO KEY UPDATE SKIP LOCKED`,
      params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Up to `limit` of the endpoint's due deliveries (oldest due first) that may be sent now
   * (SENDABLE: only test events while it is paused), locked for this transaction. Judged in the
   * statement that locks, unlike an endpoint: with the endpoint held (takeIdle), the only change
   * another transaction can make to these rows is a run settling them, which clears `job_id`, so
   * no job the statement's snapshot cannot see is ever judged; and `enabled` cannot change (the
   * endpoint's row is ours).
   */
  async due(sql: Sql, endpointId: string, limit: number): Promise<string[]> {
    const { rows } = await sql.query<{ id: string }>(
      `SELECT d.id::text AS id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.endpoint_id = $1 AND ${DUE} AND ${SENDABLE}
       ORDER BY d.next_attempt_at NULLS FIRST, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
      [endpointId, limit],
    );
    return rows.map((r) => r.id);
  }

  /** due ─▶ held by `job`. */
  async hold(sql: Sql, job: string, ids: readonly string[]): Promise<void> {
    if (ids.length)
      await sql.query('UPDATE webhook_deliveries SET next_attempt_at = NULL, job_id = $2 WHERE id = ANY ($1::bigint[])', [ids, job]);
  }

  /** New deliveries from the feed, held by `job`. */
  async create(sql: Sql, endpointId: string, job: string, deliveries: readonly NewDelivery[]): Promise<void> {
    if (!deliveries.length) return;
    await sql.query(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, job_id)
       SELECT $1, d.change_id, d.event_type, d.committed_at, d.payload, $3
       FROM jsonb_to_recordset($2::jsonb) AS d(change_id text, event_type text, committed_at timestamptz, payload text)`,
      [endpointId, JSON.stringify(deliveries), job],
    );
  }

  /** New deliveries of a replay: due at once, taken by the endpoint's next batches. */
  async createReplays(sql: Sql, endpointId: string, deliveries: readonly NewDelivery[]): Promise<void> {
    await sql.query(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, replay, next_attempt_at)
       SELECT $1, d.change_id, d.event_type, d.committed_at, d.payload, true, now()
       FROM jsonb_to_recordset($2::jsonb) AS d(change_id text, event_type text, committed_at timestamptz, payload text)`,
      [endpointId, JSON.stringify(deliveries)],
    );
  }

  /** idle ─▶ outstanding(`job`), the endpoint's position moved past what the batch took from the feed. */
  async openBatch(sql: Sql, endpointId: string, job: string, position: FeedPosition): Promise<void> {
    await sql.query(
      'UPDATE webhook_endpoints SET position_epoch = $2, position_xid = $3::xid8, position_seq = $4, batch_job = $5 WHERE id = $1',
      [endpointId, ...position, job],
    );
  }

  // The sender's side: a job's run.

  /** What `job` holds and has not settled, in order. */
  async heldBy(job: string): Promise<Sendable[]> {
    const { rows } = await this.db.query<Sendable>(
      `SELECT id::text AS id, change_id, event_type, payload, attempts FROM webhook_deliveries
       WHERE job_id = $1 AND status = 'pending' ORDER BY webhook_deliveries.id`,
      [job],
    );
    return rows;
  }

  /**
   * True when `run` is the job's current run, its row then locked until the caller's transaction
   * ends (pg-boss's expiry cannot hand it on meanwhile). False when the run expired: another run
   * of the job sends and records.
   */
  ownRun(sql: Sql, run: JobRun): Promise<boolean> {
    return isCurrentRun(sql, run);
  }

  /**
   * Holds the endpoint's row until the caller's transaction ends, before a run's outcomes lock the
   * deliveries: the order every writer of both takes (the dispatcher, a patch, a delete, whose
   * cascade then locks the deliveries), so a delete and a run settling cannot wait on each other.
   */
  async lockEndpoint(sql: Sql, endpointId: string): Promise<void> {
    await sql.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE', [endpointId]);
  }

  /** held by `job` ─▶ delivered | failed | pending (due at its retry time): every outcome of a run in one statement. */
  async record(sql: Sql, job: string, outcomes: readonly Outcome[]): Promise<void> {
    if (!outcomes.length) return;
    await sql.query(
      `UPDATE webhook_deliveries d SET
         attempts = d.attempts + 1, last_status = o.status, last_error = o.error, last_latency_ms = o.latency_ms,
         status = o.next, last_attempt_at = now(), next_attempt_at = o.next_attempt_at, job_id = NULL,
         delivered_at = CASE WHEN o.next = 'delivered' THEN now() END
       FROM jsonb_to_recordset($2::jsonb) AS o(id bigint, status integer, error text, latency_ms integer, next text, next_attempt_at timestamptz)
       WHERE d.id = o.id AND d.job_id = $1`,
      [
        job,
        JSON.stringify(
          outcomes.map((o) => ({
            id: o.id,
            status: o.status,
            error: o.error,
            latency_ms: o.latencyMs,
            next: o.next,
            next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
          })),
        ),
      ],
    );
  }

  /** held by `job`, not attempted (the run's deadline, a shutdown) ─▶ due now, no attempt counted. */
  async putBack(sql: Sql, job: string): Promise<void> {
    await sql.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), job_id = NULL WHERE job_id = $1 AND status = 'pending'`, [job]);
  }

  /** outstanding(`job`) ─▶ idle. */
  async closeBatch(sql: Sql, endpointId: string, job: string): Promise<void> {
    await sql.query('UPDATE webhook_endpoints SET batch_job = NULL WHERE id = $1 AND batch_job = $2', [endpointId, job]);
  }

  /** `failing` after a delivery gave up (since the first time), `active` again after a success. */
  async markEndpoint(sql: Sql, endpointId: string, state: EndpointState): Promise<void> {
    await sql.query(
      `UPDATE webhook_endpoints SET state = $2, failing_since = CASE WHEN $2 = 'failing' THEN coalesce(failing_since, now()) END
       WHERE id = $1 AND (state <> $2 OR $2 = 'failing')`,
      [endpointId, state],
    );
  }

  // The integrator's side (the API's routes and the CLI), inside the company's transaction.

  /**
   * pending (due later) | delivered | failed ─▶ pending, due now: the delivery is sent again as
   * one more attempt (counted on top of the ones made: a delivery past its schedule gets that one
   * attempt and is `failed` again if it fails). One held by a job is being attempted already and
   * is left as it is. Null when the endpoint has no such delivery.
   */
  async retry(sql: Sql, endpointId: string, publicId: string): Promise<{ public_id: string; event_type: string } | null> {
    const { rows } = await sql.query<{ public_id: string; event_type: string }>(
      `WITH found AS (SELECT id, job_id, event_type FROM webhook_deliveries WHERE endpoint_id = $1 AND public_id = $2 FOR UPDATE),
       retried AS (
         UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), delivered_at = NULL
         FROM found f WHERE d.id = f.id AND f.job_id IS NULL RETURNING d.id)
       SELECT $2::text AS public_id, event_type FROM found`,
      [endpointId, publicId],
    );
    return rows[0] ?? null;
  }

  /** The event type of the endpoint's delivery with that public id (null: none), locked until the transaction ends. */
  async eventTypeOf(sql: Sql, endpointId: string, publicId: string): Promise<string | null> {
    const { rows } = await sql.query<{ event_type: string }>(
      'SELECT event_type FROM webhook_deliveries WHERE endpoint_id = $1 AND public_id = $2 FOR UPDATE',
      [endpointId, publicId],
    );
    return rows[0]?.event_type ?? null;
  }

  /** A test event for the endpoint, due at once (sent even while it is paused: due()). Its public id. */
  async createTest(sql: Sql, endpointId: string, eventId: string, payload: string): Promise<string> {
    const { rows } = await sql.query<{ public_id: string }>(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, next_attempt_at)
       VALUES ($1, $2, '${TEST_EVENT_TYPE}', now(), $3, now()) RETURNING public_id`,
      [endpointId, eventId, payload],
    );
    return rows[0].public_id;
  }

  /** A resumed endpoint's waiting deliveries (retries not yet due) ─▶ due now. */
  async dueNow(sql: Sql, endpointId: string): Promise<void> {
    await sql.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > now()`,
      [endpointId],
    );
  }

  /** The endpoint's deliveries before `before` (an internal id), newest first, `limit` of them, of one status or all. */
  async page(sql: Sql, endpointId: string, before: string | null, limit: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
    const values = [endpointId, before ?? ALL_IDS, ...(status ? [status] : [])];
    const { rows } = await sql.query<DeliveryRow>(deliveriesPage(status !== undefined, limit), values);
    return pageOf(rows, limit);
  }

  // History.

  /** Deletes the idempotency keys of creates past their 24 h (a request with such a key is a new request anyway). */
  async purgeIdempotencyKeys(): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`);
  }

  /** Deletes settled delivery records created more than `days` ago; returns how many. */
  async purge(days: number): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM webhook_deliveries WHERE created_at < now() - make_interval(days => $1) AND status <> 'pending'`,
      [days],
    );
    return rowCount ?? 0;
  }
}
