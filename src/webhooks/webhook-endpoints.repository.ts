import { Injectable } from '@nestjs/common';
import { ChangeObject } from '../changes/change.vocabulary';
import { FEED_HORIZON, FeedPosition } from '../changes/changes.repository';
import { OwnerPool, Sql } from '../database/owner-pool';
import { iso } from '../database/sql';
import { EndpointState } from './webhook.vocabulary';

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
  /** The job that holds the endpoint's outstanding batch, if one was queued (see WebhookDeliveries). */
  batch_job: string | null;
  created_at: string;
}

/** The columns of an EndpointRow, from `webhook_endpoints e JOIN companies c`. */
export const ENDPOINT_COLUMNS = `e.id::text AS id, e.public_id, e.company_id::text AS company_id, c.public_id AS company_public_id, e.url, e.types,
  e.state, ${iso('e.failing_since')} AS failing_since, e.secret, e.previous_secret,
  coalesce(e.previous_secret_until > now(), false) AS previous_active, ${iso('e.previous_secret_until')} AS previous_secret_until,
  e.position_epoch::text AS position_epoch, e.position_xid::text AS position_xid, e.position_seq::text AS position_seq,
  e.batch_job::text AS batch_job, ${iso('e.created_at')} AS created_at`;

/**
 * Webhook endpoints as the admin registers them: their destination, types and signing secrets.
 * Changes for the admin's reasons (registration, rotation); where a batch stands is
 * WebhookDeliveries'. Reached as the schema owner (the API role holds no privilege on it).
 */
@Injectable()
export class WebhookEndpoints {
  constructor(private readonly db: OwnerPool) {}

  /** The feed's head now: every entry committed later lies after it. */
  async head(): Promise<FeedPosition> {
    const { rows } = await this.db.query<{ live: string; horizon: string }>(
      `SELECT live::text AS live, horizon::text AS horizon FROM (${FEED_HORIZON}) h`,
    );
    return [rows[0].live, rows[0].horizon, '0'];
  }

  async insert(endpoint: {
    publicId: string;
    companyId: string;
    url: string;
    types: ChangeObject[] | null;
    sealedSecret: string;
    position: FeedPosition;
  }): Promise<EndpointRow> {
    await this.db.query(
      `INSERT INTO webhook_endpoints (public_id, company_id, url, types, secret, position_epoch, position_xid, position_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7::xid8, $8)`,
      [endpoint.publicId, endpoint.companyId, endpoint.url, endpoint.types, endpoint.sealedSecret, ...endpoint.position],
    );
    return (await this.byPublicId(endpoint.publicId))!;
  }

  byPublicId(publicId: string): Promise<EndpointRow | null> {
    return this.one('e.public_id = $1', publicId);
  }

  byId(id: string, sql: Sql = this.db): Promise<EndpointRow | null> {
    return this.one('e.id = $1', id, sql);
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
  async delete(id: string): Promise<void> {
    await this.db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  /**
   * Replaces the secret; the current one keeps signing until `overlapSeconds` from now. Null when
   * a previous secret still signs (checked in the same statement: two rotations at once cannot
   * both win).
   */
  async rotateSecret(id: string, sealedSecret: string, overlapSeconds: number): Promise<string | null> {
    const { rows } = await this.db.query<{ until: string }>(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = $2, previous_secret_until = now() + make_interval(secs => $3)
       WHERE id = $1 AND NOT coalesce(previous_secret_until > now(), false)
       RETURNING ${iso('previous_secret_until')} AS until`,
      [id, sealedSecret, overlapSeconds],
    );
    return rows[0]?.until ?? null;
  }

  /** Ends the previous secret's overlap now; returns whether one was still signing. */
  async expirePreviousSecret(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_until = NULL
       WHERE id = $1 AND previous_secret_until > now()`,
      [id],
    );
    return (rowCount ?? 0) > 0;
  }

  private async one(where: string, value: string, sql: Sql = this.db): Promise<EndpointRow | null> {
    const { rows } = await sql.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e JOIN companies c ON c.id = e.company_id WHERE ${where}`,
      [value],
    );
    return rows[0] ?? null;
  }
}
