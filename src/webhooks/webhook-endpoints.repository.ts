import { Injectable } from '@nestjs/common';
import { ChangeObject } from '../changes/change.vocabulary';
import { FEED_HORIZON, FeedPosition } from '../changes/changes.repository';
import { OwnerPool, Sql } from '../database/owner-pool';
import { iso, micros } from '../database/sql';
import { EndpointState } from './webhook.vocabulary';

/**
 * An endpoint as its company's reads see it (the API, the CLI): everything but its secrets, which
 * the API role cannot read (WEBHOOK_ADMIN_TABLES).
 */
export interface EndpointView {
  id: string;
  public_id: string;
  company_id: string;
  company_public_id: string;
  url: string;
  types: ChangeObject[] | null;
  state: EndpointState;
  failing_since: string | null;
  /** True while the previous secret still signs. */
  previous_active: boolean;
  previous_secret_until: string | null;
  position_epoch: string;
  position_xid: string;
  position_seq: string;
  /** The job that holds the endpoint's outstanding batch, if one was queued (see WebhookDeliveries). */
  batch_job: string | null;
  created_at: string;
  description: string | null;
  /** False while paused: its deliveries wait (WebhookDeliveries). */
  enabled: boolean;
  updated_at: string;
  /** `created_at` in microseconds since the epoch: the list's keyset position with `id`. */
  created_micros: string;
}

/** An endpoint row as the worker sees it: with its secrets, still sealed. */
export interface EndpointRow extends EndpointView {
  secret: string;
  previous_secret: string | null;
}

/** The columns of an EndpointView, from `webhook_endpoints e JOIN companies c`: every one the API role may read. */
const VIEW_COLUMNS = `e.id::text AS id, e.public_id, e.company_id::text AS company_id, c.public_id AS company_public_id, e.url, e.types,
  e.state, ${iso('e.failing_since')} AS failing_since,
  coalesce(e.previous_secret_until > now(), false) AS previous_active, ${iso('e.previous_secret_until')} AS previous_secret_until,
  e.position_epoch::text AS position_epoch, e.position_xid::text AS position_xid, e.position_seq::text AS position_seq,
  e.batch_job::text AS batch_job, ${iso('e.created_at')} AS created_at, e.description, e.enabled, ${iso('e.updated_at')} AS updated_at,
  ${micros('e.created_at')} AS created_micros`;

/** The columns of an EndpointRow: the view's and the sealed secrets (the worker, the schema owner). */
export const ENDPOINT_COLUMNS = `${VIEW_COLUMNS}, e.secret, e.previous_secret`;

/** What a patch may change (docs/API.md, "Managing your webhooks"). */
export interface EndpointPatch {
  url?: string;
  types?: ChangeObject[] | null;
  description?: string | null;
  enabled?: boolean;
}

/**
 * Webhook endpoints as the admin or the integrator registers them: their destination, types and
 * signing secrets. Changes for their reasons (registration, patch, rotation); where a batch stands
 * is WebhookDeliveries'. Reached on `sql`: the schema owner's (the CLI, the worker) or the API
 * role's tenant transaction, where row-level security shows the company's endpoints only; every
 * statement of a company's names it too.
 */
@Injectable()
export class WebhookEndpoints {
  constructor(private readonly db: OwnerPool) {}

  /** The feed's head now: every entry committed later lies after it. */
  async head(sql: Sql = this.db): Promise<FeedPosition> {
    const { rows } = await sql.query<{ live: string; horizon: string }>(
      `SELECT live::text AS live, horizon::text AS horizon FROM (${FEED_HORIZON}) h`,
    );
    return [rows[0].live, rows[0].horizon, '0'];
  }

  async insert(
    sql: Sql,
    endpoint: {
      publicId: string;
      companyId: string;
      url: string;
      types: ChangeObject[] | null;
      description: string | null;
      sealedSecret: string;
      position: FeedPosition;
    },
  ): Promise<EndpointView> {
    await sql.query(
      `INSERT INTO webhook_endpoints (public_id, company_id, url, types, description, secret, position_epoch, position_xid, position_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::xid8, $9)`,
      [
        endpoint.publicId,
        endpoint.companyId,
        endpoint.url,
        endpoint.types,
        endpoint.description,
        endpoint.sealedSecret,
        ...endpoint.position,
      ],
    );
    return (await this.inCompany(sql, endpoint.companyId, endpoint.publicId))!;
  }

  /** The company's endpoint with that public id; with `lock`, its row held until the transaction ends (a patch, a rotation, a delete). */
  async inCompany(sql: Sql, companyId: string, publicId: string, lock = false): Promise<EndpointView | null> {
    const { rows } = await sql.query<EndpointView>(
      `SELECT ${VIEW_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id
       WHERE e.company_id = $1 AND e.public_id = $2${lock ? ' FOR NO KEY UPDATE OF e' : ''}`,
      [companyId, publicId],
    );
    return rows[0] ?? null;
  }

  /**
   * Holds, until the transaction ends, the company's right to add an endpoint, then counts its
   * endpoints: two creates at once count one after the other (WEBHOOK_ENDPOINTS_MAX holds).
   */
  async countForAdding(sql: Sql, companyId: string): Promise<number> {
    await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1::text, 0))`, [companyId]);
    const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_id = $1', [companyId]);
    return rows[0].n;
  }

  /** The company's endpoints after `after` (created_micros, id), oldest first, `limit` of them. */
  async page(sql: Sql, companyId: string, after: readonly [string, string] | null, limit: number): Promise<EndpointView[]> {
    const { rows } = await sql.query<EndpointView>(
      `SELECT ${VIEW_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id
       WHERE e.company_id = $1
         AND ($2::bigint IS NULL OR (${micros('e.created_at')}::bigint, e.id) > ($2::bigint, $3::bigint))
       ORDER BY e.created_at, e.id LIMIT $4`,
      [companyId, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows;
  }

  /**
   * Applies a patch. `enabled: true` also resumes: `failing` is cleared (the receiver was fixed;
   * a failure will say so again). Returns the endpoint as it is now.
   */
  async update(sql: Sql, endpoint: EndpointView, patch: EndpointPatch): Promise<EndpointView> {
    const sets: string[] = ['updated_at = now()'];
    const values: unknown[] = [endpoint.id];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (patch.url !== undefined) set('url', patch.url);
    if (patch.types !== undefined) set('types', patch.types);
    if (patch.description !== undefined) set('description', patch.description);
    if (patch.enabled !== undefined) set('enabled', patch.enabled);
    if (patch.enabled === true) sets.push(`state = 'active'`, 'failing_since = NULL');
    await sql.query(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1`, values);
    return (await this.inCompany(sql, endpoint.company_id, endpoint.public_id))!;
  }

  /** Where the endpoint sends now and whether it is enabled; null once deleted (the sender's look before each attempt). */
  async destination(id: string): Promise<{ url: string; enabled: boolean } | null> {
    const { rows } = await this.db.query<{ url: string; enabled: boolean }>('SELECT url, enabled FROM webhook_endpoints WHERE id = $1', [
      id,
    ]);
    return rows[0] ?? null;
  }

  /** Any company's endpoint with that public id (the CLI, which acts for every company, finds its company so). */
  byPublicId(publicId: string, sql: Sql = this.db): Promise<EndpointRow | null> {
    return this.one('e.public_id = $1', [publicId], sql);
  }

  byId(id: string, sql: Sql = this.db): Promise<EndpointRow | null> {
    return this.one('e.id = $1', [id], sql);
  }

  async list(companyId?: string): Promise<EndpointRow[]> {
    const { rows } = await this.db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id
       WHERE $1::bigint IS NULL OR e.company_id = $1 ORDER BY e.created_at, e.id`,
      [companyId ?? null],
    );
    return rows;
  }

  /** Deletes the endpoint and its delivery records; a job still queued for it finds nothing to send. */
  async delete(sql: Sql, id: string): Promise<void> {
    await sql.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  /**
   * Replaces the secret; the current one keeps signing until `overlapSeconds` from now. Null when
   * a previous secret still signs (checked in the same statement: two rotations at once cannot
   * both win). Through `app_rotate_webhook_secret` (src/database/webhook-secrets-sql.ts), which acts on the
   * transaction's company (`app.company_id`) only: the API role cannot read the secret it moves.
   */
  async rotateSecret(sql: Sql, id: string, sealedSecret: string, overlapSeconds: number): Promise<string | null> {
    const { rows } = await sql.query<{ until: string | null }>(`SELECT ${iso('u')} AS until FROM app_rotate_webhook_secret($1, $2, $3) u`, [
      id,
      sealedSecret,
      overlapSeconds,
    ]);
    return rows[0]?.until ?? null;
  }

  /** Ends the previous secret's overlap now; returns whether one was still signing. */
  async expirePreviousSecret(sql: Sql, id: string): Promise<boolean> {
    const { rowCount } = await sql.query(
      `UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_until = NULL
       WHERE id = $1 AND previous_secret_until > now()`,
      [id],
    );
    return (rowCount ?? 0) > 0;
  }

  private async one(where: string, values: unknown[], sql: Sql = this.db): Promise<EndpointRow | null> {
    const { rows } = await sql.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id WHERE ${where}`,
      values,
    );
    return rows[0] ?? null;
  }
}
