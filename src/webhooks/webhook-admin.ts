import { Injectable } from '@nestjs/common';
import { ChangeObject } from '../changes/change.vocabulary';
import { ChangesRepository, FeedPosition, FeedRead } from '../changes/changes.repository';
import { AdminError, AdminErrorCode } from '../common/errors/admin-error';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import { parseId } from '../common/ids/public-id';
import { CompanyNotFoundError } from '../companies/companies.service';
import { OwnerPool } from '../database/owner-pool';
import { TenantTransaction } from '../database/tenant-transaction';
import { DeliveryStatus, EndpointState } from './webhook.vocabulary';
import { typesOf } from './webhook-dispatcher';
import { DeliveryRow } from './webhook-delivery';
import { EndpointView, WebhookEndpoints } from './webhook-endpoints.repository';
import { WebhookScope, WebhooksService } from './webhooks.service';

/** An endpoint as `webhooks:list` prints it: never a secret. */
export interface EndpointSummary {
  endpoint_id: string;
  company_id: string;
  url: string;
  types: ChangeObject[] | null;
  state: EndpointState | 'disabled';
  failing_since: string | null;
}

/** A delivery as `webhooks:deliveries` prints it. */
export type DeliverySummary = Omit<DeliveryRow, 'id' | 'held'>;

/** The API's refusals as the CLI names them (ADMIN_ERROR_CODES). */
const ADMIN_CODES: Partial<Record<ErrorCode, AdminErrorCode>> = {
  INVALID_WEBHOOK_URL: 'WEBHOOK_URL_REFUSED',
  RESOURCE_NOT_FOUND: 'WEBHOOK_ENDPOINT_NOT_FOUND',
  ROTATION_IN_PROGRESS: 'ROTATION_IN_PROGRESS',
  WEBHOOK_ENDPOINT_LIMIT: 'WEBHOOK_ENDPOINT_LIMIT',
  INVALID_CURSOR: 'INVALID_ARGUMENTS',
  INSUFFICIENT_SCOPE: 'INVALID_ARGUMENTS',
};

/** How many endpoints one `webhooks:list` shows at most (WEBHOOK_ENDPOINTS_MAX is far below). */
const LIST_ALL = 100_000;

/**
 * The admin CLI's `webhooks:*` commands on WebhooksService, acting as the schema owner for the
 * company an option names (or the one the endpoint belongs to): the same rules as the API's
 * routes, the CLI's own shapes (`endpoint_id`, `company_id`) and error codes.
 */
@Injectable()
export class WebhookAdmin {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly endpoints: WebhookEndpoints,
    private readonly owner: OwnerPool,
    private readonly tenant: TenantTransaction,
    private readonly changes: ChangesRepository,
  ) {}

  /** Registers an endpoint for every type (or `types`); prints its secret once. */
  async add(input: {
    company: string;
    url: string;
    types?: ChangeObject[];
  }): Promise<Omit<EndpointSummary, 'failing_since'> & { secret: string }> {
    const scope = await this.ofCompany(input.company);
    const created = await admin(this.webhooks.create(scope, { url: input.url, types: input.types }));
    if (created.replayed) throw new Error('an admin create has no idempotency key');
    const { failing_since: _, ...added } = summary(created.answer.endpoint);
    return { ...added, secret: created.answer.secret };
  }

  /** One company's endpoints, or every company's. */
  async list(company?: string): Promise<EndpointSummary[]> {
    if (company !== undefined) {
      const scope = await this.ofCompany(company);
      return (await this.webhooks.list(scope, null, LIST_ALL)).map(summary);
    }
    return (await this.endpoints.list()).map(summary);
  }

  async remove(endpointId: string): Promise<{ endpoint_id: string; company_id: string; removed: true }> {
    const removed = await admin(this.webhooks.remove(await this.ofEndpoint(endpointId), endpointId));
    return { ...ids(removed), removed: true };
  }

  async rotateSecret(
    endpointId: string,
  ): Promise<{ endpoint_id: string; company_id: string; secret: string; previous_secret_expires_at: string }> {
    const rotated = await admin(this.webhooks.rotateSecret(await this.ofEndpoint(endpointId), endpointId));
    return { ...ids(rotated.endpoint), secret: rotated.secret, previous_secret_expires_at: rotated.previous_secret_expires_at };
  }

  async expirePreviousSecret(endpointId: string): Promise<{ endpoint_id: string; company_id: string; expired: boolean }> {
    const ended = await admin(this.webhooks.expirePreviousSecret(await this.ofEndpoint(endpointId), endpointId));
    return { ...ids(ended.endpoint), expired: ended.expired };
  }

  /** The newest `limit` (up to 1,000), read a page of at most 100 at a time. */
  async deliveries(endpointId: string, limit: number, status?: DeliveryStatus): Promise<DeliverySummary[]> {
    const scope = await this.ofEndpoint(endpointId);
    const rows: DeliveryRow[] = [];
    for (let before: string | null = null; rows.length < limit;) {
      const take = Math.min(100, limit - rows.length);
      const page: DeliveryRow[] = await admin(this.webhooks.deliveries(scope, endpointId, before, take, status));
      rows.push(...page);
      if (page.length < take) break;
      before = page[page.length - 1].id;
    }
    return rows.map(({ id: _id, held: _held, ...row }) => row);
  }

  async replay(endpointId: string, from: string): Promise<{ endpoint_id: string; company_id: string; queued: number }> {
    const replayed = await admin(this.webhooks.replay(await this.ofEndpoint(endpointId), endpointId, from));
    return { ...ids(replayed.endpoint), queued: replayed.queued };
  }

  /** The company's scope; read as the schema owner, like everything the CLI does (the API role sees no company outside a tenant transaction). */
  private async ofCompany(companyPublicId: string): Promise<WebhookScope> {
    const id = parseId('company', companyPublicId);
    const { rows } = id
      ? await this.owner.query<{ id: string; public_id: string }>('SELECT id::text AS id, public_id FROM companies WHERE public_id = $1', [
          id,
        ])
      : { rows: [] };
    if (!rows.length) throw new CompanyNotFoundError(companyPublicId);
    return this.scope(rows[0].id, rows[0].public_id);
  }

  /** The scope of the company the endpoint belongs to (an admin acts for every company). */
  private async ofEndpoint(endpointId: string): Promise<WebhookScope> {
    const id = parseId('webhookEndpoint', endpointId);
    const endpoint = id ? await this.endpoints.byPublicId(id) : null;
    if (!endpoint) throw new AdminError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint with id ${JSON.stringify(endpointId)}.`);
    return this.scope(endpoint.company_id, endpoint.company_public_id);
  }

  private scope(companyId: string, companyPublicId: string): WebhookScope {
    return {
      companyId,
      companyPublicId,
      readable: null, // an admin sends every type

      // The company of the transaction, as the tenant transaction sets it: what the rotation's function acts on.
      transaction: (work) =>
        this.owner.transaction(async (sql) => {
          await sql.query(`SELECT set_config('app.company_id', $1, true)`, [companyId]);
          return work(sql);
        }),
      // The feed in the tenant's own transaction, as the dispatcher reads it (row-level security, the feed's query).
      feed: (endpoint: EndpointView, after: FeedPosition, take: number): Promise<FeedRead> =>
        this.tenant.run(endpoint.company_id, () => this.changes.page(endpoint.company_id, typesOf(endpoint), after, take)),
    };
  }
}

/** The service's refusal in the CLI's words: its code (ADMIN_CODES), its detail. */
async function admin<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const code = error instanceof ApiError ? ADMIN_CODES[error.code] : undefined;
    if (code && error instanceof ApiError) throw new AdminError(code, error.detail);
    throw error;
  }
}

function ids(row: EndpointView): { endpoint_id: string; company_id: string } {
  return { endpoint_id: row.public_id, company_id: row.company_public_id };
}

function summary(row: EndpointView): EndpointSummary {
  return {
    ...ids(row),
    url: row.url,
    types: row.types,
    state: row.enabled ? row.state : 'disabled',
    failing_since: row.failing_since,
  };
}
