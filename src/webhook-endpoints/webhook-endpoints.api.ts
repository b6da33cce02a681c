import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CLS_REQ, ClsService } from 'nestjs-cls';
import { auditEventOf } from '../audit/audit-event';
import { AuditTrail } from '../audit/audit-trail';
import { readableObjects } from '../changes/change.vocabulary';
import { ChangesRepository } from '../changes/changes.repository';
import { CursorBinding, CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { TenantTransaction } from '../database/tenant-transaction';
import { AppConfig } from '../config/app-config';
import { IdempotentRequest } from '../webhooks/idempotency-keys';
import { SigningKeys } from '../webhooks/webhook-secrets';
import { typesOf } from '../webhooks/webhook-dispatcher';
import { CreatedEndpoint, requestHash, WebhookScope, WebhooksService } from '../webhooks/webhooks.service';
import {
  CreatedWebhookEndpointDto,
  CreateWebhookEndpointBody,
  DeliveryQueuedDto,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  ReplayQueuedDto,
  RotatedSecretDto,
  UpdateWebhookEndpointBody,
  WebhookDeliveryDto,
  WebhookEndpointDto,
} from './webhook-endpoint.dto';
import { deliveryView, endpointView } from './webhook-endpoint-views';

const CREATE = 'POST /v1/webhook-endpoints';
const LIST = 'GET /v1/webhook-endpoints';
const DELIVERIES = 'GET /v1/webhook-endpoints/{endpoint_id}/deliveries';

/**
 * The routes' side of WebhooksService: the caller's company as the scope (the API role's writable
 * tenant transaction, row-level security on every row), the token's readable types, the answers'
 * shapes and pages, and the ids each audit row names.
 */
@Injectable()
export class WebhookEndpointsApi {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly tenant: TenantTransaction,
    private readonly changes: ChangesRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
    private readonly keys: SigningKeys,
    private readonly trail: AuditTrail,
    private readonly config: AppConfig,
  ) {}

  async create(body: CreateWebhookEndpointBody, idempotencyKey: string | undefined, res: Response): Promise<CreatedWebhookEndpointDto> {
    this.requireSealing();
    const principal = principalOf(this.cls);
    const key = idempotencyKeyOf(idempotencyKey);
    const request: IdempotentRequest | undefined = key
      ? {
          clientId: principal.clientId,
          key,
          operation: CREATE,
          // Without `types`, what the token reads is what it asked for: another token's default is another request.
          hash: requestHash(CREATE, { ...body, types: body.types ?? readableObjects(principal.scopes) }),
          render: (answer) => JSON.stringify(createdView(answer as CreatedEndpoint)),
          typesOf: (answer) => (JSON.parse(answer) as CreatedWebhookEndpointDto).types,
        }
      : undefined;
    const created = await this.webhooks.create(
      this.scope(201),
      { url: body.url, types: body.types, description: body.description },
      request,
    );
    const view: CreatedWebhookEndpointDto = created.replayed ? JSON.parse(created.answer) : createdView(created.answer);
    // A repeat wrote nothing: its row is recorded as a read's, before the answer leaves.
    if (created.replayed) await this.recordWrite(201, [view.id]);
    if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.location(`/v1/webhook-endpoints/${view.id}`);
    this.audit(view.id);
    return view;
  }

  async list(query: ListWebhookEndpointsQuery): Promise<Page<WebhookEndpointDto>> {
    const scope = this.scope();
    const binding: CursorBinding = { route: LIST, company: scope.companyId, filters: {} };
    const after = query.cursor === undefined ? null : twoIds(this.codec.open(query.cursor, binding));
    const rows = await this.webhooks.list(scope, after, query.limit + 1);
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.created_micros, r.id],
      (page) => page.map(endpointView),
      this.codec,
      binding,
    );
  }

  async get(id: string): Promise<WebhookEndpointDto> {
    const endpoint = await this.webhooks.get(this.scope(), id);
    this.audit(endpoint.public_id);
    return endpointView(endpoint);
  }

  async update(id: string, body: UpdateWebhookEndpointBody): Promise<WebhookEndpointDto> {
    const endpoint = await this.webhooks.update(this.scope(200), id, body);
    this.audit(endpoint.public_id);
    return endpointView(endpoint);
  }

  async remove(id: string): Promise<void> {
    const endpoint = await this.webhooks.remove(this.scope(204), id);
    this.audit(endpoint.public_id);
  }

  async rotateSecret(id: string): Promise<RotatedSecretDto> {
    this.requireSealing();
    const rotated = await this.webhooks.rotateSecret(this.scope(200), id);
    this.audit(rotated.endpoint.public_id);
    return { secret: rotated.secret, previous_secret_expires_at: rotated.previous_secret_expires_at };
  }

  async deliveries(id: string, query: ListWebhookDeliveriesQuery): Promise<Page<WebhookDeliveryDto>> {
    const scope = this.scope();
    // Bound to the endpoint as it was asked for (its id) and the filter: it opens on that list only.
    const binding: CursorBinding = { route: DELIVERIES, company: scope.companyId, parent: id, filters: { state: query.state } };
    const before = query.cursor === undefined ? null : oneId(this.codec.open(query.cursor, binding));
    const rows = await this.webhooks.deliveries(scope, id, before, query.limit + 1, query.state);
    this.audit(id, ...rows.slice(0, query.limit).map((r) => r.delivery_id));
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.id],
      (page) => page.map(deliveryView),
      this.codec,
      binding,
    );
  }

  async retry(id: string, deliveryId: string): Promise<DeliveryQueuedDto> {
    const retried = await this.webhooks.retry(this.scope(202), id, deliveryId);
    this.audit(retried.endpoint.public_id, retried.delivery_id);
    return { delivery_id: retried.delivery_id };
  }

  async test(id: string): Promise<DeliveryQueuedDto> {
    const sent = await this.webhooks.test(this.scope(202), id);
    this.audit(sent.endpoint.public_id, sent.delivery_id);
    return { delivery_id: sent.delivery_id };
  }

  async replay(id: string, from: string): Promise<ReplayQueuedDto> {
    const replayed = await this.webhooks.replay(this.scope(202), id, from);
    this.audit(replayed.endpoint.public_id);
    return { queued: replayed.queued };
  }

  /**
   * The caller's company, in the API role's writable tenant transaction; the feed read in that same
   * transaction. For a write, `status` is what the route answers: its audit row is written before
   * the transaction commits (fail-closed for the write itself, not only for its answer).
   */
  private scope(status?: number): WebhookScope {
    const principal = principalOf(this.cls);
    return {
      ...(status === undefined ? {} : { written: (ids: string[]) => this.recordWrite(status, ids) }),
      companyId: principal.companyId,
      companyPublicId: principal.companyPublicId,
      readable: readableObjects(principal.scopes),
      // The first WEBHOOK_REPLAY_MAX after `from` (replay again from the last one's cursor to go on).
      replayMax: this.config.webhooks.replayMax,
      transaction: (work) => this.tenant.runWritable(principal.companyId, work),
      feed: (endpoint, after, take) => this.changes.page(endpoint.company_id, typesOf(endpoint), after, take),
    };
  }

  /** Without WEBHOOK_SECRET_KEY (production) no secret can be sealed or an answer kept: `503`, said, not a 500. */
  private requireSealing(): void {
    try {
      void this.keys.box;
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', 'Webhook secrets cannot be kept here: the service runs without WEBHOOK_SECRET_KEY.');
    }
  }

  /** A write's audit row, in the trail before the write commits (the route audits itself: AuditsItself). */
  private async recordWrite(status: number, ids: string[]): Promise<void> {
    const req = this.cls.get<Request>(CLS_REQ);
    await this.trail.recordOrRefuse(
      auditEventOf(req, this.cls, status, ids),
      'The change could not be recorded in the audit trail, so it was not made; retry with backoff.',
    );
  }

  private audit(...ids: string[]): void {
    this.cls.set('auditResources', ids);
  }
}

/** The create's answer: the endpoint and, this once, its secret. */
function createdView(created: CreatedEndpoint): CreatedWebhookEndpointDto {
  return { ...endpointView(created.endpoint), secret: created.secret };
}

/** `Idempotency-Key`: 1 to 255 characters, or none. */
function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length < 1 || header.length > 255) throw new ApiError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 characters.');
  return header;
}

/** A sealed position's shape, checked before it reaches SQL (a cursor is ours, its shape still checked). */
function twoIds(position: ReadonlyArray<string | number>): [string, string] {
  const [a, b] = position.map(String);
  if (position.length !== 2 || !/^\d+$/.test(a) || !/^\d+$/.test(b))
    throw new ApiError('INVALID_CURSOR', 'The cursor is not one of this list.');
  return [a, b];
}

function oneId(position: ReadonlyArray<string | number>): string {
  const [a] = position.map(String);
  if (position.length !== 1 || !/^\d+$/.test(a)) throw new ApiError('INVALID_CURSOR', 'The cursor is not one of this list.');
  return a;
}
