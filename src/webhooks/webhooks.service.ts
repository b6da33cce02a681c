import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuthErrors } from '../auth/auth-errors';
import { CHANGE_OBJECTS, ChangeObject, FEED_SCOPES, SCOPES_OF_OBJECT } from '../changes/change.vocabulary';
import { comparePositions, FeedPosition, FeedRead, positionAt } from '../changes/changes.repository';
import { feedBinding, openFeedCursor } from '../changes/changes.service';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { ApiError } from '../common/errors/api-error';
import { mintId, parseId } from '../common/ids/public-id';
import { Instant } from '../common/validation/instant';
import { AppConfig } from '../config/app-config';
import { Sql } from '../database/owner-pool';
import { IdempotencyKeys, IdempotentRequest } from './idempotency-keys';
import { DeliveryStatus, TEST_EVENT_TYPE } from './webhook.vocabulary';
import { deliveriesOf, typesOf } from './webhook-dispatcher';
import { generateSigningSecret, SigningKeys } from './webhook-secrets';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { DeliveryRow } from './webhook-delivery';
import { EndpointPatch, EndpointView, WebhookEndpoints } from './webhook-endpoints.repository';
import { DestinationPolicy, DestinationRefused, hostOf } from './webhook-destination';

/**
 * One company's webhook configuration, as whoever acts on it reaches it: the API's tenant
 * transaction for an integrator (row-level security shows that company's rows only), the schema
 * owner's for the admin CLI. Every rule is WebhooksService's; a scope only says where it runs.
 */
export interface WebhookScope {
  /** Internal id. */
  readonly companyId: string;
  readonly companyPublicId: string;
  /** Runs `work` in one transaction that reaches the company's webhook rows. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /** Up to `take` entries of the endpoint's feed after `after`, below the horizon, read as its tenant (inside `transaction` where it can). */
  feed(endpoint: EndpointView, after: FeedPosition, take: number): Promise<FeedRead>;
  /**
   * The types the caller may read (an integrator's token's), or null for an admin, who may send
   * every type. An endpoint's types must be among them to be given, and to be changed, replayed,
   * retried, rotated or to have its deliveries listed: what it sends is what the caller reads.
   */
  readonly readable: ReadableTypes;
  /** The most events one replay queues (the API's), or none for an admin. */
  readonly replayMax?: number;
  /**
   * Called inside a write's transaction, before it commits, with the ids it wrote (the endpoint,
   * the delivery): the API's audit row, so a write whose row cannot be kept is undone rather than
   * done unrecorded (and a new secret never lost behind a 503 while it is already in force).
   */
  written?(resourceIds: string[]): Promise<void>;
}

/** A new endpoint: its URL, and optionally its types and description. */
export interface NewEndpoint {
  url: string;
  types?: ChangeObject[];
  description?: string | null;
}

/** What a create answers: the endpoint and its secret, shown this once. */
export interface CreatedEndpoint {
  endpoint: EndpointView;
  secret: string;
}

/**
 * What the caller may ask for: the types its token reads (an endpoint's types must be among them;
 * the default), or null for an admin, who may send every type (the default then: all of them).
 */
export type ReadableTypes = readonly ChangeObject[] | null;

/** How long a registration waits for a name to resolve before taking it as not resolving now. */
const RESOLVE_DEADLINE_MS = 3000;

/** Entries replayed per read of the feed (one statement of deliveries each). */
const REPLAY_PAGE = 100;

/**
 * Webhook endpoints and their deliveries, every rule of them, behind both the admin CLI's
 * `webhooks:*` commands and the API's `/v1/webhook-endpoints` routes: registration (the
 * destination policy at once, after resolution; the company's limit; the idempotency of a
 * create), patches (pause, resume), secrets and their rotation, the delivery history, a retry,
 * a test event, replays from a point of the feed. The worker sends what these write
 * (WebhookDeliveries: the state machine). Errors are the API's (ApiError); the CLI names them
 * in its own codes.
 */
@Injectable()
export class WebhooksService {
  private readonly policy: DestinationPolicy;

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveryRecords: WebhookDeliveries,
    private readonly codec: CursorCodec,
    private readonly config: AppConfig,
    private readonly keys: SigningKeys,
    private readonly idempotency: IdempotencyKeys,
  ) {
    this.policy = new DestinationPolicy(config.webhooks.allowPrivate);
  }

  /**
   * Registers an endpoint; it receives the changes committed from now on (older ones through a
   * replay). With `request`, a create repeated with the same key answers the first answer (the
   * key is taken in the same transaction, so two at once make one endpoint: the second waits for
   * the first to commit, then reads its answer).
   */
  async create(
    scope: WebhookScope,
    input: NewEndpoint,
    request?: IdempotentRequest,
  ): Promise<{ answer: CreatedEndpoint; replayed: false } | { answer: string; replayed: true }> {
    // A repeat answers the first answer before anything is judged again (the name may resolve elsewhere now).
    if (request) {
      const earlier = await scope.transaction((sql) => this.idempotency.earlier(sql, scope.companyId, request));
      if (earlier !== null) return { answer: this.replayable(scope, request, earlier), replayed: true };
    }
    const types = this.typesFor(input.types, scope.readable);
    await this.checkDestination(input.url);
    return scope.transaction(async (sql) => {
      if (request) {
        const earlier = await this.idempotency.claim(sql, scope.companyId, request);
        if (earlier !== null) return { answer: this.replayable(scope, request, earlier), replayed: true as const };
      }
      if ((await this.endpoints.countForAdding(sql, scope.companyId)) >= this.config.webhooks.endpointsMax) {
        throw new ApiError(
          'WEBHOOK_ENDPOINT_LIMIT',
          `The company has ${this.config.webhooks.endpointsMax} webhook endpoints already, the most it may have; delete one first.`,
        );
      }
      const secret = generateSigningSecret();
      const publicId = mintId('webhookEndpoint');
      const endpoint = await this.endpoints.insert(sql, {
        publicId,
        companyId: scope.companyId,
        url: input.url,
        types,
        description: input.description ?? null,
        sealedSecret: this.keys.box.seal(secret, publicId),
        position: await this.endpoints.head(sql),
      });
      const answer = { endpoint, secret };
      if (request) await this.idempotency.complete(sql, scope.companyId, request, request.render(answer));
      await scope.written?.([endpoint.public_id]);
      return { answer, replayed: false as const };
    });
  }

  /**
   * A first answer given again: only to a caller that reads every type its endpoint sends (a key is
   * the client's, and one of its tokens may carry fewer scopes than the one that created it: the
   * answer holds the secret).
   */
  private replayable(scope: WebhookScope, request: IdempotentRequest, answer: string): string {
    this.mustRead(scope, request.typesOf(answer));
    return answer;
  }

  /** The company's endpoints after the cursor's position, oldest first. */
  list(scope: WebhookScope, after: readonly [string, string] | null, limit: number): Promise<EndpointView[]> {
    return scope.transaction((sql) => this.endpoints.page(sql, scope.companyId, after, limit));
  }

  get(scope: WebhookScope, endpointId: string): Promise<EndpointView> {
    return scope.transaction((sql) => this.endpointOf(sql, scope, endpointId));
  }

  /**
   * Changes what the patch names. A new URL is judged as at registration; `enabled: false`
   * pauses (deliveries wait, none is dropped); `enabled: true` resumes: `failing` cleared and the
   * waiting retries due at once.
   */
  async update(scope: WebhookScope, endpointId: string, patch: EndpointPatch): Promise<EndpointView> {
    const changes: EndpointPatch = { ...patch };
    if (patch.types !== undefined) changes.types = this.typesFor(patch.types ?? undefined, scope.readable);
    if (patch.url !== undefined) await this.checkDestination(patch.url);
    return scope.transaction(async (sql) => {
      // Its types now must be the caller's to change it at all: narrowing them first, then re-pointing it, would
      // otherwise send what was already queued of the others (and their retries) to a URL of the caller's.
      const endpoint = await this.endpointOf(sql, scope, endpointId, { lock: true, readsTypes: true });
      const updated = await this.endpoints.update(sql, endpoint, changes);
      if (patch.enabled === true) await this.deliveryRecords.dueNow(sql, endpoint.id);
      await scope.written?.([endpoint.public_id]);
      return updated;
    });
  }

  /** Deletes the endpoint and its delivery records; jobs still queued for it finish without sending. */
  remove(scope: WebhookScope, endpointId: string): Promise<EndpointView> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { lock: true });
      await this.endpoints.delete(sql, endpoint.id);
      await scope.written?.([endpoint.public_id]);
      return endpoint;
    });
  }

  /** A new signing secret; the current one signs too until WEBHOOK_SECRET_OVERLAP from now. */
  rotateSecret(
    scope: WebhookScope,
    endpointId: string,
  ): Promise<{ endpoint: EndpointView; secret: string; previous_secret_expires_at: string }> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { lock: true, readsTypes: true });
      const secret = generateSigningSecret();
      const until = await this.endpoints.rotateSecret(
        sql,
        endpoint.id,
        this.keys.box.seal(secret, endpoint.public_id),
        this.config.webhooks.secretOverlapSeconds,
      );
      if (!until) {
        throw new ApiError(
          'ROTATION_IN_PROGRESS',
          `Endpoint ${endpoint.public_id} already signs with two secrets; the previous one signs until ${endpoint.previous_secret_until}.`,
        );
      }
      await scope.written?.([endpoint.public_id]);
      return { endpoint, secret, previous_secret_expires_at: until };
    });
  }

  /** Ends the previous secret's overlap now (it leaked, or the receiver switched): events carry the current signature only. */
  expirePreviousSecret(scope: WebhookScope, endpointId: string): Promise<{ endpoint: EndpointView; expired: boolean }> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { lock: true });
      const expired = await this.endpoints.expirePreviousSecret(sql, endpoint.id);
      await scope.written?.([endpoint.public_id]);
      return { endpoint, expired };
    });
  }

  /** The endpoint's deliveries before `before` (an internal id), newest first. */
  deliveries(
    scope: WebhookScope,
    endpointId: string,
    before: string | null,
    limit: number,
    status?: DeliveryStatus,
  ): Promise<DeliveryRow[]> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { readsTypes: true });
      return this.deliveryRecords.page(sql, endpoint.id, before, limit, status);
    });
  }

  /** Sends that delivery's event again as a new attempt, whatever its state (one being attempted now is left to that attempt). */
  retry(scope: WebhookScope, endpointId: string, deliveryId: string): Promise<{ endpoint: EndpointView; delivery_id: string }> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { readsTypes: true });
      const id = parseId('webhookDelivery', deliveryId);
      const type = id ? await this.deliveryRecords.eventTypeOf(sql, endpoint.id, id) : null;
      if (!type) throw ApiError.notFound(`No delivery ${JSON.stringify(deliveryId)} of webhook endpoint ${endpoint.public_id}.`);
      // The event's own type, not only the endpoint's: its types may have been narrowed since it was sent.
      this.mustRead(scope, [type.split('.')[0] as ChangeObject]);
      const retried = (await this.deliveryRecords.retry(sql, endpoint.id, id!))!;
      await scope.written?.([endpoint.public_id, retried.public_id]);
      return { endpoint, delivery_id: retried.public_id };
    });
  }

  /** A `webhook.test` event, signed like every event and recorded as a delivery; sent to a paused endpoint too. */
  test(scope: WebhookScope, endpointId: string): Promise<{ endpoint: EndpointView; delivery_id: string }> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId);
      const event = { type: TEST_EVENT_TYPE, timestamp: new Date().toISOString(), data: { endpoint_id: endpoint.public_id } };
      const deliveryId = await this.deliveryRecords.createTest(sql, endpoint.id, mintId('webhookEvent'), JSON.stringify(event));
      await scope.written?.([endpoint.public_id, deliveryId]);
      return { endpoint, delivery_id: deliveryId };
    });
  }

  /**
   * Sends again every change after `from` (a cursor of this endpoint's feed: an event's `cursor`,
   * or a feed cursor for the same types; or an RFC 3339 date-time: every change committed after
   * it, read from the horizon mark at or before it (positionAt), so some committed shortly before
   * it come too) up to the endpoint's position now; later ones reach it anyway. Each is a new
   * delivery, due at once, with the same `webhook-id`; the endpoint's batches take them (first,
   * before new changes). Entries compacted away are represented by their object's newest entry, as
   * in the feed. A change in the batch being sent now is sent twice: at least once. At most the
   * scope's `replayMax` (the API's 10,000), the first after `from`: to go on, replay again from
   * the last one's cursor.
   */
  replay(scope: WebhookScope, endpointId: string, from: string): Promise<{ endpoint: EndpointView; queued: number }> {
    return scope.transaction(async (sql) => {
      const endpoint = await this.endpointOf(sql, scope, endpointId, { readsTypes: true });
      const since = Instant.parse(from);
      let after: FeedPosition = since
        ? await positionAt(async (text, params) => (await sql.query<{ epoch: string; horizon: string }>(text, params)).rows, since.iso)
        : this.openCursor(endpoint, from);
      const until: FeedPosition = [endpoint.position_epoch, endpoint.position_xid, endpoint.position_seq];
      const most = scope.replayMax ?? Infinity;
      let queued = 0;
      for (let take = Math.min(REPLAY_PAGE, most); take > 0; take = Math.min(REPLAY_PAGE, most - queued)) {
        const { rows: page } = await scope.feed(endpoint, after, take);
        const rows = page.filter((row) => comparePositions([row.epoch, row.xid, row.seq], until) <= 0);
        if (rows.length) {
          await this.deliveryRecords.createReplays(sql, endpoint.id, deliveriesOf(this.codec, endpoint, rows));
          queued += rows.length;
        }
        if (rows.length < take) break; // the feed, or the endpoint's position, came first
        const last = rows[rows.length - 1];
        after = [last.epoch, last.xid, last.seq];
      }
      await scope.written?.([endpoint.public_id]);
      return { endpoint, queued };
    });
  }

  /**
   * The company's endpoint with that id; `404` otherwise (another company's is as unknown as none).
   * With `lock`, held until the transaction ends; with `readsTypes`, refused (`403`) unless the
   * caller reads every type it sends.
   */
  private async endpointOf(
    sql: Sql,
    scope: WebhookScope,
    endpointId: string,
    { lock = false, readsTypes = false }: { lock?: boolean; readsTypes?: boolean } = {},
  ): Promise<EndpointView> {
    const id = parseId('webhookEndpoint', endpointId);
    const endpoint = id ? await this.endpoints.inCompany(sql, scope.companyId, id, lock) : null;
    if (!endpoint) throw ApiError.notFound(`No webhook endpoint with id ${JSON.stringify(endpointId)}.`);
    if (readsTypes) this.mustRead(scope, typesOf(endpoint));
    return endpoint;
  }

  /** `403 INSUFFICIENT_SCOPE`, naming the scopes, unless the caller reads every one of `types` (a test event's `webhook` is no feed type: anyone's). */
  private mustRead(scope: WebhookScope, types: readonly string[]): void {
    if (scope.readable === null) return;
    const unreadable = types.find((type) => type !== 'webhook' && !scope.readable!.includes(type as ChangeObject));
    if (unreadable) throw AuthErrors.insufficientScope(SCOPES_OF_OBJECT[unreadable as ChangeObject]);
  }

  /** The endpoint's types: those asked (in the feed's order), all the caller may read by default; a type it cannot read is refused. */
  private typesFor(asked: ChangeObject[] | undefined, readable: ReadableTypes): ChangeObject[] | null {
    if (asked === undefined) {
      if (readable === null) return null;
      if (!readable.length) throw AuthErrors.insufficientScope(FEED_SCOPES, true);
      return [...readable];
    }
    // A type the token cannot read: the scopes it needs for it, as the feed names them (GET /v1/changes).
    const unreadable = asked.find((type) => readable !== null && !readable.includes(type));
    if (unreadable) throw AuthErrors.insufficientScope(SCOPES_OF_OBJECT[unreadable]);
    return CHANGE_OBJECTS.filter((type) => asked.includes(type));
  }

  private openCursor(endpoint: EndpointView, cursor: string): FeedPosition {
    try {
      return openFeedCursor(this.codec, cursor, feedBinding(endpoint.company_id, typesOf(endpoint)));
    } catch {
      // not one of this endpoint's cursors: said below
    }
    throw new ApiError(
      'INVALID_CURSOR',
      `from must be an RFC 3339 date-time with an offset, or a cursor of endpoint ${endpoint.public_id}'s feed (an event's cursor).`,
    );
  }

  /**
   * The destination policy's judgement at registration: the URL, then (when the name resolves
   * now) every address it resolves to. A name that does not resolve yet is accepted: the
   * transport judges again before every connection.
   */
  private async checkDestination(url: string): Promise<void> {
    const refused = this.policy.refusedUrl(url);
    if (refused) throw new ApiError('INVALID_WEBHOOK_URL', `The URL is refused: ${refused}.`);
    const host = hostOf(new URL(url));
    // A name that does not answer within the deadline is taken as one that does not resolve now: the
    // request does not wait on a slow resolver (the transport judges the name before every send).
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, RESOLVE_DEADLINE_MS)));
    const judged = this.policy.destination(host).then(
      () => undefined,
      (error: Error) => {
        if (error instanceof DestinationRefused) {
          throw new ApiError('INVALID_WEBHOOK_URL', `The URL is refused: ${host} resolves to ${error.address}: ${error.message}.`);
        }
      },
    );
    try {
      await Promise.race([judged, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The hash an idempotent request is compared by: its operation and its body, keys sorted. */
export function requestHash(operation: string, body: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(body)}`)
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
