import { Injectable } from '@nestjs/common';
import { CHANGE_OBJECTS, ChangeObject } from '../changes/change.vocabulary';
import { ChangeRow, ChangesRepository, comparePositions, FeedPosition, FeedRead } from '../changes/changes.repository';
import { feedBinding } from '../changes/changes.service';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { AppConfig } from '../config/app-config';
import { TenantTransaction } from '../database/tenant-transaction';
import { WebhookEvent } from './webhook.vocabulary';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { NewDelivery } from './webhook-delivery';
import { EndpointRow } from './webhook-endpoints.repository';
import { WebhookQueue } from './webhook-queue';

/** Dispatcher passes between two sweeps of idle endpoints past the types they do not follow. */
const SKIP_EVERY = 100;

/** The types an endpoint follows: its own, or every type (the feed's default for a token that reads them all). */
export const typesOf = (endpoint: Pick<EndpointRow, 'types'>): readonly ChangeObject[] => endpoint.types ?? CHANGE_OBJECTS;

/**
 * Builds each endpoint's next batch and queues it as one job. For each endpoint whose batch is
 * idle and that has work, in one transaction that holds the endpoint's row (SKIP LOCKED: another
 * worker skips it): its due deliveries first (retries, replays, attempts put back, what a lost job
 * held), then, to fill the batch, the next page of its company's feed after its position, read
 * through the API's tenant transaction (row-level security, the feed's own query and horizon),
 * each entry a new delivery. The job, the deliveries it holds and the endpoint's batch and
 * position are written together (WebhookDeliveries: hold, create, openBatch), so an entry is
 * never passed over and never queued twice. One batch per endpoint is outstanding at a time, so a
 * slow or dead receiver holds one worker slot at most, and what waits stays in the feed and the
 * delivery rows. A paused endpoint (`enabled = false`) gets its due test events only, and its
 * feed is not read: its position stays, so the entries wait there until it is resumed.
 */
@Injectable()
export class WebhookDispatcher {
  private passes = 0;

  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly queue: WebhookQueue,
    private readonly tenant: TenantTransaction,
    private readonly changes: ChangesRepository,
    private readonly codec: CursorCodec,
    private readonly config: AppConfig,
  ) {}

  /** One pass over every endpoint with something to send; returns the deliveries queued. */
  async dispatch(): Promise<number> {
    // Now and then, idle endpoints that follow some types only skip what they do not follow.
    if (this.passes++ % SKIP_EVERY === 0) await this.deliveries.skipUnfollowed();
    let queued = 0;
    for (const id of await this.deliveries.endpointsWithWork()) queued += await this.dispatchEndpoint(id);
    return queued;
  }

  private dispatchEndpoint(id: string): Promise<number> {
    const { batchSize } = this.config.webhooks;
    return this.deliveries.db.transaction(async (sql) => {
      const endpoint = await this.deliveries.takeIdle(sql, id);
      if (!endpoint) return 0;
      const due = await this.deliveries.due(sql, endpoint.id, batchSize);
      let position: FeedPosition = [endpoint.position_epoch, endpoint.position_xid, endpoint.position_seq];
      let fresh: NewDelivery[] = [];
      // Paused: no feed read, so the position stays and the entries wait in the feed.
      const room = endpoint.paused ? 0 : batchSize - due.length;
      if (room > 0) {
        const { rows, horizon } = await this.read(endpoint, position, room);
        if (rows.length) {
          fresh = this.deliveriesOf(endpoint, rows);
          const last = rows[rows.length - 1];
          position = [last.epoch, last.xid, last.seq];
        }
        if (rows.length < room && comparePositions(horizon, position) > 0) position = horizon;
      }
      if (!due.length && !fresh.length) return 0;
      const job = await this.queue.insert(sql, { endpoint_id: endpoint.id });
      await this.deliveries.hold(sql, job, due);
      await this.deliveries.create(sql, endpoint.id, job, fresh);
      await this.deliveries.openBatch(sql, endpoint.id, job, position);
      return due.length + fresh.length;
    });
  }

  /** Up to `take` entries of the endpoint's feed after `after`, below the horizon, read as its tenant. */
  async read(endpoint: EndpointRow, after: FeedPosition, take: number): Promise<FeedRead> {
    return this.tenant.run(endpoint.company_id, () => this.changes.page(endpoint.company_id, typesOf(endpoint), after, take));
  }

  /** The event of each entry as the endpoint receives it (deliveriesOf). */
  deliveriesOf(endpoint: EndpointRow, rows: ChangeRow[]): NewDelivery[] {
    return deliveriesOf(this.codec, endpoint, rows);
  }
}

/** The event of each entry as the endpoint receives it, with its cursor bound to the endpoint's types. */
export function deliveriesOf(codec: CursorCodec, endpoint: Pick<EndpointRow, 'company_id' | 'types'>, rows: ChangeRow[]): NewDelivery[] {
  const binding = feedBinding(endpoint.company_id, typesOf(endpoint));
  return rows.map((row) => {
    const event: WebhookEvent = {
      type: `${row.object}.${row.action}`,
      timestamp: row.committed_at,
      data: {
        change_id: row.public_id,
        object: row.object,
        object_id: row.object_id,
        parent_id: row.parent_id,
        changed: row.changed,
        cursor: codec.seal(binding, [row.epoch, row.xid, row.seq]),
      },
    };
    return { change_id: row.public_id, event_type: event.type, committed_at: row.committed_at, payload: JSON.stringify(event) };
  });
}
