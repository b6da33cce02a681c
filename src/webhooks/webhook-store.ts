import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { DatabaseUrls } from '../config/database-urls';
import { iso } from '../database/sql';
import { ChangeObject } from '../changes/change.vocabulary';
import { FEED_HORIZON, FeedPosition, someEntry } from '../changes/changes.repository';
import { DeliveryStatus, EndpointState } from './webhook.vocabulary';
import { survivePoolErrors } from '../database/pool-errors';

/** An endpoint row as the admin commands and the worker see it (the secrets still sealed). */
export interface EndpointRow {
  id: string;
  public_id: string;
  company_id: string;
  company_public_id: string;
  url: string;
  types: ChangeObject[] | null;
  state: EndpointState;
  failing_since: string | null;
  secret: string;
  previous_secret: string | null;
  /** True while the previous secret still signs. */
  previous_active: boolean;
  previous_secret_until: string | null;
  position_epoch: string;
  position_xid: string;
  position_seq: string;
  batch_pending: boolean;
  batch_claimed_at: string | null;
  created_at: string;
}

/** One delivery as `webhooks:deliveries` lists it. */
export interface DeliveryRow {
  delivery_id: string;
  change_id: string;
  event_type: string;
  replay: boolean;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  committed_at: string;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

/** A delivery to send: its id, the change it reports and the body exactly as signed. */
export interface Sendable {
  id: string;
  change_id: string;
  payload: string;
  attempts: number;
}

/** What one attempt at one delivery came to, and what follows. */
export interface Outcome {
  id: string;
  status: number | null;
  error: string | null;
  latencyMs: number;
  /** The delivery's state after this attempt, and when it is next tried (pending only). */
  next: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/** A new delivery: one change entry for one endpoint. */
export interface NewDelivery {
  change_id: string;
  event_type: string;
  committed_at: string;
  payload: string;
}

export type Sql = Pick<PoolClient, 'query'>;

/** A pending delivery (`d`) that is due: its time has come, or the batch that claimed it is lost (`stale`: the parameter holding the seconds until a claim is). */
const due = (stale: string) =>
  `(d.next_attempt_at <= now() OR (d.next_attempt_at IS NULL AND d.claimed_at < now() - make_interval(secs => ${stale})))`;

const ENDPOINT_COLUMNS = `e.id::text AS id, e.public_id, e.company_id::text AS company_id, c.public_id AS company_public_id, e.url, e.types,
  e.state, ${iso('e.failing_since')} AS failing_since, e.secret, e.previous_secret,
  coalesce(e.previous_secret_until > now(), false) AS previous_active, ${iso('e.previous_secret_until')} AS previous_secret_until,
  e.position_epoch::text AS position_epoch, e.position_xid::text AS position_xid, e.position_seq::text AS position_seq, e.batch_pending,
  ${iso('e.batch_claimed_at')} AS batch_claimed_at, ${iso('e.created_at')} AS created_at`;

/**
 * The webhook tables, reached as the schema owner over a small pool of its own (the API role
 * holds no privilege on them). Every statement is here; the services decide.
 */
@Injectable()
export class WebhookStore implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  readonly pool: Pool;

  constructor(urls: DatabaseUrls) {
    this.pool = new Pool({
      connectionString: urls.owner,
      max: 10,
      application_name: 'conversation-read-api-webhooks',
      connectionTimeoutMillis: 5000,
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
      keepAlive: true,
    });
    survivePoolErrors(this.pool, this.logger, 'webhook');
  }

  /** The last phase of shutdown: the worker has stopped before it (beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` in one transaction on one connection. */
  async transaction<T>(work: (sql: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The feed's head now: every entry committed later lies after it. */
  async head(): Promise<FeedPosition> {
    const { rows } = await this.pool.query<{ live: string; horizon: string }>(
      `SELECT live::text AS live, horizon::text AS horizon FROM (${FEED_HORIZON}) h`,
    );
    return [rows[0].live, rows[0].horizon, '0'];
  }

  async insertEndpoint(endpoint: {
    publicId: string;
    companyId: string;
    url: string;
    types: ChangeObject[] | null;
    sealedSecret: string;
    position: FeedPosition;
  }): Promise<EndpointRow> {
    await this.pool.query(
      `INSERT INTO webhook_endpoints (public_id, company_id, url, types, secret, position_epoch, position_xid, position_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7::xid8, $8)`,
      [endpoint.publicId, endpoint.companyId, endpoint.url, endpoint.types, endpoint.sealedSecret, ...endpoint.position],
    );
    return (await this.endpoint(endpoint.publicId))!;
  }

  async endpoint(publicId: string, sql: Sql = this.pool, lock = ''): Promise<EndpointRow | null> {
    const { rows } = await sql.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id WHERE e.public_id = $1 ${lock}`,
      [publicId],
    );
    return rows[0] ?? null;
  }

  async endpointById(id: string, sql: Sql = this.pool, lock = ''): Promise<EndpointRow | null> {
    const { rows } = await sql.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id WHERE e.id = $1 ${lock}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async listEndpoints(companyId?: string): Promise<EndpointRow[]> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id
       WHERE $1::bigint IS NULL OR e.company_id = $1 ORDER BY e.created_at, e.id`,
      [companyId ?? null],
    );
    return rows;
  }

  async deleteEndpoint(id: string): Promise<void> {
    await this.pool.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  /**
   * Replaces the secret; the current one keeps signing until `overlapSeconds` from now. Null when
   * a previous secret still signs (checked in the same statement: two rotations at once cannot
   * both win).
   */
  async rotateSecret(id: string, sealedSecret: string, overlapSeconds: number): Promise<string | null> {
    const { rows } = await this.pool.query<{ until: string }>(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = $2, previous_secret_until = now() + make_interval(secs => $3)
       WHERE id = $1 AND NOT coalesce(previous_secret_until > now(), false)
       RETURNING ${iso('previous_secret_until')} AS until`,
      [id, sealedSecret, overlapSeconds],
    );
    return rows[0]?.until ?? null;
  }

  /** Ends the previous secret's overlap now; returns whether one was still signing. */
  async expirePreviousSecret(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_until = NULL
       WHERE id = $1 AND previous_secret_until > now()`,
      [id],
    );
    return (rowCount ?? 0) > 0;
  }

  async deliveries(endpointId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT public_id AS delivery_id, change_id, event_type, replay, status, attempts, last_status, last_error, last_latency_ms,
         ${iso('committed_at')} AS committed_at, ${iso('created_at')} AS created_at, ${iso('last_attempt_at')} AS last_attempt_at,
         ${iso('next_attempt_at')} AS next_attempt_at, ${iso('delivered_at')} AS delivered_at
       FROM webhook_deliveries WHERE endpoint_id = $1 AND ($3::text IS NULL OR status = $3)
       ORDER BY id DESC LIMIT $2`,
      [endpointId, limit, status ?? null],
    );
    return rows;
  }

  /**
   * Endpoints with something to dispatch: no batch outstanding (or one older than `staleSeconds`,
   * taken as lost), and either a delivery due or an entry of their company and types after their
   * position and below the horizon. One statement for every endpoint, so an idle dispatcher costs
   * one query a poll; it returns ids only (the entries themselves are read in the tenant's own
   * transaction, under row-level security).
   */
  async endpointsWithWork(staleSeconds: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT e.id::text AS id FROM webhook_endpoints e, (${FEED_HORIZON}) h
       WHERE (NOT e.batch_pending OR e.batch_claimed_at < now() - make_interval(secs => $1))
         AND (
           EXISTS (
             SELECT 1 FROM webhook_deliveries d
             WHERE d.endpoint_id = e.id AND d.status = 'pending' AND ${due('$1')}
           )
           OR ${someEntry('e.company_id', 'e.types', ['e.position_epoch', 'e.position_xid', 'e.position_seq'])}
         )
       ORDER BY e.id`,
      [staleSeconds],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Moves idle endpoints that follow some types only past the entries of other types (to the
   * horizon, when nothing of theirs lies before it), so their next look starts there instead of
   * scanning those entries again.
   */
  async skipUnfollowed(): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_endpoints e SET position_epoch = h.live, position_xid = h.horizon, position_seq = 0
       FROM (${FEED_HORIZON}) h
       WHERE e.types IS NOT NULL AND NOT e.batch_pending AND (e.position_epoch, e.position_xid) < (h.live, h.horizon)
         AND NOT ${someEntry('e.company_id', 'e.types', ['e.position_epoch', 'e.position_xid', 'e.position_seq'])}`,
    );
    return rowCount ?? 0;
  }

  /** The endpoint's row locked for dispatching, unless another worker holds it or a batch (not yet stale) is outstanding. */
  async claimForDispatch(sql: Sql, id: string, staleSeconds: number): Promise<EndpointRow | null> {
    const row = await this.endpointById(id, sql, 'FOR NO KEY UPDATE OF e SKIP LOCKED');
    if (!row) return null;
    const stale = row.batch_claimed_at !== null && Date.parse(row.batch_claimed_at) < Date.now() - staleSeconds * 1000;
    return !row.batch_pending || stale ? row : null;
  }

  /** Up to `limit` of the endpoint's deliveries that are due (oldest first), locked for this transaction. */
  async dueDeliveries(sql: Sql, endpointId: string, limit: number, staleSeconds: number): Promise<string[]> {
    const { rows } = await sql.query<{ id: string }>(
      `SELECT d.id::text AS id FROM webhook_deliveries d
       WHERE d.endpoint_id = $1 AND d.status = 'pending' AND ${due('$3')}
       ORDER BY d.next_attempt_at NULLS FIRST, d.id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [endpointId, limit, staleSeconds],
    );
    return rows.map((r) => r.id);
  }

  /** The deliveries now belong to a batch: not due again unless the batch is lost. */
  async claim(sql: Sql, ids: readonly string[]): Promise<void> {
    if (ids.length)
      await sql.query('UPDATE webhook_deliveries SET next_attempt_at = NULL, claimed_at = now() WHERE id = ANY ($1::bigint[])', [ids]);
  }

  /** New deliveries, claimed by the batch being built (or, for a replay, due now); returns their ids. */
  async insertDeliveries(sql: Sql, endpointId: string, deliveries: NewDelivery[], replay = false): Promise<string[]> {
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, replay, claimed_at, next_attempt_at)
       SELECT $1, d.change_id, d.event_type, d.committed_at, d.payload, $3,
         CASE WHEN $3 THEN NULL ELSE now() END, CASE WHEN $3 THEN now() END
       FROM jsonb_to_recordset($2::jsonb) AS d(change_id text, event_type text, committed_at timestamptz, payload text)
       RETURNING id::text AS id`,
      [endpointId, JSON.stringify(deliveries), replay],
    );
    return rows.map((r) => r.id);
  }

  async advance(sql: Sql, endpointId: string, position: FeedPosition): Promise<void> {
    await sql.query(
      'UPDATE webhook_endpoints SET position_epoch = $2, position_xid = $3::xid8, position_seq = $4, batch_pending = true, batch_claimed_at = now() WHERE id = $1',
      [endpointId, ...position],
    );
  }

  async releaseBatch(sql: Sql, endpointId: string): Promise<void> {
    await sql.query('UPDATE webhook_endpoints SET batch_pending = false, batch_claimed_at = NULL WHERE id = $1', [endpointId]);
  }

  /** Deliveries a batch did not get to attempt (its deadline, a shutdown): due again at once, no attempt counted. */
  async putBack(sql: Sql, ids: readonly string[]): Promise<void> {
    if (ids.length) {
      await sql.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now(), claimed_at = NULL WHERE id = ANY ($1::bigint[]) AND status = 'pending'`,
        [ids],
      );
    }
  }

  /** The endpoint's deliveries among `ids` still waiting for an attempt. */
  async sendable(endpointId: string, ids: readonly string[]): Promise<Sendable[]> {
    const { rows } = await this.pool.query<Sendable>(
      `SELECT id::text AS id, change_id, payload, attempts FROM webhook_deliveries
       WHERE endpoint_id = $1 AND id = ANY ($2::bigint[]) AND status = 'pending' ORDER BY id`,
      [endpointId, ids],
    );
    return rows;
  }

  /** Writes every outcome of a batch in one statement. */
  async recordOutcomes(sql: Sql, outcomes: readonly Outcome[]): Promise<void> {
    if (!outcomes.length) return;
    await sql.query(
      `UPDATE webhook_deliveries d SET
         attempts = d.attempts + 1, last_status = o.status, last_error = o.error, last_latency_ms = o.latency_ms,
         status = o.next, last_attempt_at = now(), next_attempt_at = o.next_attempt_at, claimed_at = NULL,
         delivered_at = CASE WHEN o.next = 'delivered' THEN now() END
       FROM jsonb_to_recordset($1::jsonb) AS o(id bigint, status integer, error text, latency_ms integer, next text, next_attempt_at timestamptz)
       WHERE d.id = o.id`,
      [
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

  /** `failing` after a delivery gave up (since the first time), `active` again after a success. */
  async markEndpoint(sql: Sql, endpointId: string, state: EndpointState): Promise<void> {
    await sql.query(
      `UPDATE webhook_endpoints SET state = $2, failing_since = CASE WHEN $2 = 'failing' THEN coalesce(failing_since, now()) END
       WHERE id = $1 AND (state <> $2 OR $2 = 'failing')`,
      [endpointId, state],
    );
  }

  /** Deletes delivery records created more than `days` ago; returns how many. */
  async purgeDeliveries(days: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM webhook_deliveries WHERE created_at < now() - make_interval(days => $1) AND status <> 'pending'`,
      [days],
    );
    return rowCount ?? 0;
  }
}
