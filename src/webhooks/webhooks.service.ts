import { Injectable } from '@nestjs/common';
import { CHANGE_OBJECTS, ChangeObject } from '../changes/change.vocabulary';
import { comparePositions, FeedPosition, positionAt } from '../changes/changes.repository';
import { feedBinding, openFeedCursor } from '../changes/changes.service';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { AdminError } from '../common/errors/admin-error';
import { mintId, parseId } from '../common/ids/public-id';
import { Instant } from '../common/validation/instant';
import { CompaniesService } from '../companies/companies.service';
import { AppConfig } from '../config/app-config';
import { DeliveryStatus, EndpointState } from './webhook.vocabulary';
import { typesOf, WebhookDispatcher } from './webhook-dispatcher';
import { generateSigningSecret, SigningKeys } from './webhook-secrets';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { DeliveryRow } from './webhook-delivery';
import { EndpointRow, WebhookEndpoints } from './webhook-endpoints.repository';
import { DestinationPolicy, DestinationRefused, hostOf } from './webhook-destination';

/** An endpoint as `webhooks:list` prints it: never a secret. */
export interface EndpointSummary {
  endpoint_id: string;
  company_id: string;
  url: string;
  types: ChangeObject[] | null;
  state: EndpointState;
  failing_since: string | null;
}

/** Entries replayed per transaction (one job each). */
const REPLAY_PAGE = 100;

/**
 * The admin side of webhooks (the CLI's `webhooks:*` commands): endpoints, their secrets, their
 * delivery records, and replays from a point of the feed.
 */
@Injectable()
export class WebhooksService {
  private readonly policy: DestinationPolicy;

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveryRecords: WebhookDeliveries,
    private readonly dispatcher: WebhookDispatcher,
    private readonly companies: CompaniesService,
    private readonly codec: CursorCodec,
    private readonly config: AppConfig,
    private readonly keys: SigningKeys,
  ) {
    this.policy = new DestinationPolicy(config.webhooks.allowPrivate);
  }

  /**
   * Registers an endpoint; it receives the changes committed from now on (older ones through a
   * replay). The URL is refused when it can never be a destination, and a name when it resolves
   * to an address the worker would refuse (the worker checks again before every connection).
   */
  async add(input: {
    company: string;
    url: string;
    types?: ChangeObject[];
  }): Promise<Omit<EndpointSummary, 'failing_since'> & { secret: string }> {
    const company = await this.companies.get(input.company);
    await this.checkDestination(input.url);
    const types = input.types ? CHANGE_OBJECTS.filter((t) => input.types!.includes(t)) : null;
    const secret = generateSigningSecret();
    const publicId = mintId('webhookEndpoint');
    const row = await this.endpoints.insert({
      publicId,
      companyId: company.id,
      url: input.url,
      types,
      sealedSecret: this.keys.box.seal(secret, publicId),
      position: await this.endpoints.head(),
    });
    const { failing_since: _, ...added } = summary(row);
    return { ...added, secret };
  }

  async list(company?: string): Promise<EndpointSummary[]> {
    const companyId = company === undefined ? undefined : (await this.companies.get(company)).id;
    return (await this.endpoints.list(companyId)).map(summary);
  }

  /** Deletes the endpoint and its delivery records; jobs still queued for it finish without sending. */
  async remove(endpointId: string): Promise<{ endpoint_id: string; company_id: string; removed: true }> {
    const endpoint = await this.get(endpointId);
    await this.endpoints.delete(endpoint.id);
    return { endpoint_id: endpoint.public_id, company_id: endpoint.company_public_id, removed: true };
  }

  /** A new signing secret; the current one signs too until WEBHOOK_SECRET_OVERLAP from now. */
  async rotateSecret(
    endpointId: string,
  ): Promise<{ endpoint_id: string; company_id: string; secret: string; previous_secret_expires_at: string }> {
    const endpoint = await this.get(endpointId);
    const secret = generateSigningSecret();
    const until = await this.endpoints.rotateSecret(
      endpoint.id,
      this.keys.box.seal(secret, endpoint.public_id),
      this.config.webhooks.secretOverlapSeconds,
    );
    if (!until) {
      const current = await this.get(endpointId);
      throw new AdminError(
        'ROTATION_IN_PROGRESS',
        `Endpoint ${endpoint.public_id} already signs with two secrets; the previous one signs until ${current.previous_secret_until} (or end it: webhooks:expire-previous-secret).`,
      );
    }
    return { endpoint_id: endpoint.public_id, company_id: endpoint.company_public_id, secret, previous_secret_expires_at: until };
  }

  /** Ends the previous secret's overlap now (it leaked, or the receiver switched): events carry the current signature only. */
  async expirePreviousSecret(endpointId: string): Promise<{ endpoint_id: string; company_id: string; expired: boolean }> {
    const endpoint = await this.get(endpointId);
    const expired = await this.endpoints.expirePreviousSecret(endpoint.id);
    return { endpoint_id: endpoint.public_id, company_id: endpoint.company_public_id, expired };
  }

  async deliveries(endpointId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
    const endpoint = await this.get(endpointId);
    return this.deliveryRecords.list(endpoint.id, limit, status);
  }

  /**
   * Sends again every change after `from` (a cursor of this endpoint's feed: an event's `cursor`,
   * or a feed cursor for the same types; or an RFC 3339 date-time: every change committed after
   * it, read from the horizon mark at or before it (positionAt), so some committed shortly before
   * it come too) up to the endpoint's position now; later ones reach it anyway. Each is a new delivery,
   * due at once, with the same `webhook-id`; the endpoint's batches take them (first, before new
   * changes). Entries compacted away are represented by their object's newest entry, as in the
   * feed. A change in the batch being sent now is sent twice: at least once.
   */
  async replay(endpointId: string, from: string): Promise<{ endpoint_id: string; company_id: string; queued: number }> {
    const endpoint = await this.get(endpointId);
    const since = Instant.parse(from);
    let after: FeedPosition = since
      ? await positionAt(
          async (sql, params) => (await this.deliveryRecords.db.query<{ epoch: string; horizon: string }>(sql, params)).rows,
          since.iso,
        )
      : this.openCursor(endpoint, from);
    const until: FeedPosition = [endpoint.position_epoch, endpoint.position_xid, endpoint.position_seq];
    let queued = 0;
    for (;;) {
      const { rows: page } = await this.dispatcher.read(endpoint, after, REPLAY_PAGE);
      const rows = page.filter((row) => comparePositions([row.epoch, row.xid, row.seq], until) <= 0);
      if (rows.length) {
        await this.deliveryRecords.createReplays(this.deliveryRecords.db, endpoint.id, this.dispatcher.deliveriesOf(endpoint, rows));
        queued += rows.length;
      }
      if (rows.length < REPLAY_PAGE) break;
      const last = rows[rows.length - 1];
      after = [last.epoch, last.xid, last.seq];
    }
    return { endpoint_id: endpoint.public_id, company_id: endpoint.company_public_id, queued };
  }

  private openCursor(endpoint: EndpointRow, cursor: string): FeedPosition {
    try {
      return openFeedCursor(this.codec, cursor, feedBinding(endpoint.company_id, typesOf(endpoint)));
    } catch {
      // not one of this endpoint's cursors: said below
    }
    throw new AdminError(
      'INVALID_ARGUMENTS',
      `--from must be an RFC 3339 date-time with an offset, or a cursor of endpoint ${endpoint.public_id}'s feed (an event's cursor)`,
    );
  }

  private async get(endpointId: string): Promise<EndpointRow> {
    const id = parseId('webhookEndpoint', endpointId);
    const endpoint = id ? await this.endpoints.byPublicId(id) : null;
    if (!endpoint) throw new AdminError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint with id ${JSON.stringify(endpointId)}.`);
    return endpoint;
  }

  /**
   * The destination policy's judgement at registration: the URL, then (when the name resolves
   * now) every address it resolves to. A name that does not resolve yet is accepted: the
   * transport judges again before every connection.
   */
  private async checkDestination(url: string): Promise<void> {
    const refused = this.policy.refusedUrl(url);
    if (refused) throw new AdminError('WEBHOOK_URL_REFUSED', `--url is refused: ${refused}`);
    const host = hostOf(new URL(url));
    await this.policy.destination(host).catch((error: Error) => {
      if (error instanceof DestinationRefused) {
        throw new AdminError('WEBHOOK_URL_REFUSED', `--url is refused: ${host} resolves to ${error.address}: ${error.message}`);
      }
    });
  }
}

function summary(row: EndpointRow): EndpointSummary {
  return {
    endpoint_id: row.public_id,
    company_id: row.company_public_id,
    url: row.url,
    types: row.types,
    state: row.state,
    failing_since: row.failing_since,
  };
}
