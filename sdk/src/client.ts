import createClient from 'openapi-fetch';
import { ApiError } from './errors.js';
import { ExportStream, ExportStreamOptions } from './export.js';
import { Page, PageIterable } from './pagination.js';
import type { RateLimitState } from './rate-limit.js';
import { RequestOptions, RetryPolicy, Transport, TransportOptions } from './transport.js';
import { SyncOptions, SyncResult, SyncStore, syncCopy } from './sync.js';
import type {
  Answer,
  AnswerOf,
  AuditEvent,
  AuditEventListQuery,
  Call,
  CallListQuery,
  CaptionsQuery,
  Change,
  ChangesPage,
  ChangesQuery,
  ChatConversation,
  ChatListQuery,
  ChatMessage,
  ChatMessageListQuery,
  Context,
  ConversationPart,
  CreatedWebhookEndpoint,
  DeliveryQueued,
  EmailConversation,
  EmailListQuery,
  EmailMessage,
  EmailMessageListQuery,
  ExportQuery,
  JsonRoute,
  Meeting,
  MeetingListQuery,
  OverallEvaluation,
  PathParamsOf,
  RecordingPart,
  ReplayQueued,
  RotatedSecret,
  TextPathParamsOf,
  TextRoute,
  Transcript,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookReplay,
  WriteAnswerOf,
  WriteBodyOf,
  WriteMethod,
  WritePathParamsOf,
  WriteRoute,
} from './types.js';

export interface ConversationApiOptions extends Omit<TransportOptions, 'scopes'> {
  /** Scopes to ask for (default: every scope of the client). */
  scopes?: readonly string[];
}

/**
 * A route as it leaves the client: its query serialized, its ids filled into the path by
 * openapi-fetch. openapi-fetch types only a path written out where it is called; `get` takes its
 * path as a parameter, so `get` declares each route's types from `paths` and gives openapi-fetch
 * this wire view.
 */
interface WireRoute {
  get: {
    parameters: { query?: Record<string, string | number | boolean>; path?: Record<string, string> };
    requestBody?: never;
    responses: { 200: { headers: Record<string, unknown>; content: { 'application/json': unknown } } };
  };
}

/** Refuses a path id that is not one: an empty or dot segment would be normalised away and reach another route. */
function checkIds(pathParams: Record<string, unknown> | undefined): void {
  for (const [name, id] of Object.entries(pathParams ?? {})) {
    if (typeof id !== 'string' || id === '' || id === '.' || id === '..')
      throw new TypeError(`${name} must be an id, not ${JSON.stringify(id)}`);
  }
}

/** Comma-joins the list parameters; drops undefined values. */
function serialize(query: object | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    out[key] = Array.isArray(value) ? value.join(',') : (value as string | number | boolean);
  }
  return out;
}

/**
 * The Conversation Read API, typed from its OpenAPI document.
 *
 * ```ts
 * const api = new ConversationApi({ baseUrl, clientId, clientSecret });
 * for await (const meeting of api.meetings.list({ owner_email: 'ana@acme.com' })) console.log(meeting.title);
 * ```
 *
 * Tokens, retries and rate limits are handled (see `Transport`); every method takes a last
 * `RequestOptions` argument (`signal`, `timeout`); every failure is an `ApiError`.
 */
export class ConversationApi {
  readonly transport: Transport;
  private readonly http;

  readonly meetings: RecordingResource<Meeting, MeetingListQuery>;
  readonly calls: RecordingResource<Call, CallListQuery>;
  readonly emails: ConversationResource<EmailConversation, EmailMessage, EmailListQuery, EmailMessageListQuery>;
  readonly chat: ConversationResource<ChatConversation, ChatMessage, ChatListQuery, ChatMessageListQuery>;
  readonly changes: ChangesResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  readonly auditEvents: AuditEventsResource;

  constructor(options: ConversationApiOptions) {
    this.transport = new Transport(options);
    this.http = createClient<Record<JsonRoute | TextRoute | '/v1/export', WireRoute>>({ baseUrl: this.transport.baseUrl });
    this.meetings = new RecordingResource(this, '/v1/meetings');
    this.calls = new RecordingResource(this, '/v1/calls');
    this.emails = new ConversationResource(this, '/v1/emails');
    this.chat = new ConversationResource(this, '/v1/chat');
    this.changes = new ChangesResource(this);
    this.webhookEndpoints = new WebhookEndpointsResource(this);
    this.auditEvents = new AuditEventsResource(this);
  }

  /** The rate-limit state the last counted answer reported (null before any). */
  get rateLimit(): RateLimitState | null {
    return this.transport.rateLimit;
  }

  /** `GET /v1/context`: the token's client, company, scopes and rate-limit state. */
  async context(options?: RequestOptions): Promise<Context> {
    return (await this.get('/v1/context', {}, undefined, options)).data;
  }

  /**
   * `GET /v1/export`: every record of the company from one snapshot, as an async iterator of parsed
   * records (see `ExportStream`). Nothing is requested until you iterate.
   */
  export(query: ExportQuery = {}, options: ExportStreamOptions = {}): ExportStream {
    return new ExportStream(async (after, signal) => {
      const { response } = await this.http.GET('/v1/export', {
        params: { query: serialize({ ...query, after }) },
        parseAs: 'stream',
        headers: { Accept: 'application/x-ndjson' },
        // No deadline by default: a whole company's stream may take hours; `signal` stops it.
        fetch: (request: Request) => this.transport.send(request, { signal, timeout: undefined }, true),
      });
      return response;
    }, options);
  }

  /** Keeps a complete, current copy of the company in `store`; see `syncCopy`. */
  sync(store: SyncStore, options: SyncOptions = {}): Promise<SyncResult> {
    return syncCopy(this, store, options);
  }

  /** One GET of a JSON route through the transport; its 200 body, as the OpenAPI document types the route. @internal */
  async get<P extends JsonRoute>(
    path: P,
    query: object | undefined,
    pathParams: PathParamsOf<P>,
    options: RequestOptions = {},
  ): Promise<AnswerOf<P>> {
    checkIds(pathParams);
    try {
      const route: JsonRoute = path; // openapi-fetch resolves a route's types from a path that is not generic
      const { data } = await this.http.GET(route, {
        params: { query: serialize(query), path: pathParams },
        fetch: (request: Request) => this.transport.send(request, options),
      });
      // The transport answers only a 2xx, and that is the document's 200 for the route.
      return data as AnswerOf<P>;
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new ApiError({ status: 200, code: 'INVALID_RESPONSE', detail: `${path}: the answer is not JSON`, cause: error });
      throw error;
    }
  }

  /** One GET of a text route (the captions) through the transport; its 200 body as text, whatever its media type. @internal */
  async text<P extends TextRoute>(
    path: P,
    query: object | undefined,
    pathParams: TextPathParamsOf<P>,
    options: RequestOptions = {},
  ): Promise<string> {
    checkIds(pathParams);
    const route: TextRoute = path;
    const { data } = await this.http.GET(route, {
      params: { query: serialize(query), path: pathParams },
      parseAs: 'text',
      fetch: (request: Request) => this.transport.send(request, options),
    });
    return data as string;
  }

  /**
   * One POST, PATCH or DELETE of a `/v1` route through the transport, its body as JSON; its success
   * body (`undefined` for a 204), as the OpenAPI document types the route. `retry` says what may be
   * sent again (see `RetryPolicy`); `headers` are added (an `Idempotency-Key`). @internal
   */
  async write<M extends WriteMethod, P extends WriteRoute<M>>(
    method: M,
    path: P,
    pathParams: WritePathParamsOf<M, P>,
    body: WriteBodyOf<M, P>,
    options: RequestOptions = {},
    send: { retry: RetryPolicy; headers?: Record<string, string> },
  ): Promise<WriteAnswerOf<M, P>> {
    const ids = (pathParams ?? {}) as Record<string, string>;
    checkIds(ids);
    const route: string = path;
    const url = `${this.transport.baseUrl}${route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? ''))}`;
    const headers: Record<string, string> = { Accept: 'application/json', ...send.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const request = new Request(url, {
      method: method.toUpperCase(),
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
    const response = await this.transport.send(request, options, false, send.retry);
    if (response.status === 204) return undefined as WriteAnswerOf<M, P>;
    try {
      // The transport answers only a 2xx, and that is the document's success for the route.
      return (await response.json()) as WriteAnswerOf<M, P>;
    } catch (error) {
      throw new ApiError({ status: response.status, code: 'INVALID_RESPONSE', detail: `${path}: the answer is not JSON`, cause: error });
    }
  }

  /** A list route as an iterable of its items (`T`, what its pages hold). @internal */
  list<T, P extends JsonRoute = JsonRoute>(
    path: P,
    query: object | undefined,
    pathParams: PathParamsOf<P>,
    options?: RequestOptions,
  ): PageIterable<T> {
    return new PageIterable<T>(async (cursor) => (await this.get(path, { ...query, cursor }, pathParams, options)) as Page<T>);
  }
}

/**
 * The routes of meetings and of calls, one implementation for both: a route of either answers
 * `Meeting | Call`, and `R` is the record of the collection a resource reads (ConversationApi
 * pairs them), so its answers are narrowed to `R`.
 */
const RECORDING_ROUTES = {
  '/v1/meetings': {
    one: '/v1/meetings/{meeting_id}',
    evaluation: '/v1/meetings/{meeting_id}/evaluations/overall',
    answers: '/v1/meetings/{meeting_id}/answers',
    transcript: '/v1/meetings/{meeting_id}/transcript',
    captions: '/v1/meetings/{meeting_id}/transcript/captions',
    ids: (id: string) => ({ meeting_id: id }),
  },
  '/v1/calls': {
    one: '/v1/calls/{call_id}',
    evaluation: '/v1/calls/{call_id}/evaluations/overall',
    answers: '/v1/calls/{call_id}/answers',
    transcript: '/v1/calls/{call_id}/transcript',
    captions: '/v1/calls/{call_id}/transcript/captions',
    ids: (id: string) => ({ call_id: id }),
  },
} as const;

/** Meetings and calls: lists, details, and each one's evaluation, answers, transcript and captions. */
export class RecordingResource<R, Q extends object> {
  private readonly routes: (typeof RECORDING_ROUTES)[keyof typeof RECORDING_ROUTES];
  constructor(
    private readonly api: ConversationApi,
    private readonly path: '/v1/meetings' | '/v1/calls',
  ) {
    this.routes = RECORDING_ROUTES[path];
  }

  /** Every record matching the filters, newest first; `include` embeds parts, `ids` picks up to 100. */
  list(query?: Q, options?: RequestOptions): PageIterable<R> {
    return this.api.list<R, typeof this.path>(this.path, query, undefined, options);
  }

  /** One record by id (`include` embeds parts); `ApiError` 404 `RESOURCE_NOT_FOUND` when it is not the company's. */
  async get(id: string, query: { include?: string | readonly RecordingPart[] } = {}, options?: RequestOptions): Promise<R> {
    return (await this.api.get(this.routes.one, query, this.routes.ids(id), options)).data as R;
  }

  /** Its overall evaluation (`status: not_started` and nulls before one exists). */
  async evaluation(id: string, options?: RequestOptions): Promise<OverallEvaluation> {
    return (await this.api.get(this.routes.evaluation, {}, this.routes.ids(id), options)).data;
  }

  /** The answers to its default template's questions, in question order. */
  async answers(id: string, options?: RequestOptions): Promise<Answer[]> {
    return (await this.api.get(this.routes.answers, {}, this.routes.ids(id), options)).data;
  }

  /** Its transcript (needs `transcriptions.read`): `available: false` with its status when there is none to read. */
  async transcript(id: string, options?: RequestOptions): Promise<Transcript> {
    return (await this.api.get(this.routes.transcript, {}, this.routes.ids(id), options)).data;
  }

  /**
   * Its transcript as captions (needs `transcriptions.read`), as text: WebVTT unless `format` says
   * `srt` (SubRip) or `text` (a `Speaker: text` line per utterance). `ApiError` 404
   * `RESOURCE_NOT_FOUND` when the transcript is not available (its status in the detail).
   */
  async captions(id: string, query: CaptionsQuery = {}, options?: RequestOptions): Promise<string> {
    return this.api.text(this.routes.captions, { format: query.format ?? 'vtt' }, this.routes.ids(id), options);
  }
}

/** The routes of e-mail and of chat conversations, one implementation for both (as the recordings' above). */
const CONVERSATION_ROUTES = {
  '/v1/emails': {
    one: '/v1/emails/{email_id}',
    messages: '/v1/emails/{email_id}/messages',
    message: '/v1/emails/{email_id}/messages/{message_id}',
    ids: (id: string) => ({ email_id: id }),
  },
  '/v1/chat': {
    one: '/v1/chat/{chat_id}',
    messages: '/v1/chat/{chat_id}/messages',
    message: '/v1/chat/{chat_id}/messages/{message_id}',
    ids: (id: string) => ({ chat_id: id }),
  },
} as const;

/** E-mail and chat conversations, and their messages. */
export class ConversationResource<C, M, Q extends object, MQ extends object> {
  private readonly routes: (typeof CONVERSATION_ROUTES)[keyof typeof CONVERSATION_ROUTES];
  constructor(
    private readonly api: ConversationApi,
    private readonly path: '/v1/emails' | '/v1/chat',
  ) {
    this.routes = CONVERSATION_ROUTES[path];
  }

  /** Every conversation matching the filters; `include: ['messages']` embeds each one's messages, `ids` picks up to 100. */
  list(query?: Q, options?: RequestOptions): PageIterable<C> {
    return this.api.list<C, typeof this.path>(this.path, query, undefined, options);
  }

  /** One conversation by id (`include: ['messages']` embeds its messages). */
  async get(id: string, query: { include?: string | readonly ConversationPart[] } = {}, options?: RequestOptions): Promise<C> {
    return (await this.api.get(this.routes.one, query, this.routes.ids(id), options)).data as C;
  }

  /** Its messages, oldest first (needs the channel's content scope). */
  messages(id: string, query?: MQ, options?: RequestOptions): PageIterable<M> {
    return this.api.list<M, typeof this.routes.messages>(this.routes.messages, query, this.routes.ids(id), options);
  }

  /** One of its messages by id, as its page shows it. */
  async message(id: string, messageId: string, options?: RequestOptions): Promise<M> {
    const ids = { ...this.routes.ids(id), message_id: messageId };
    return (await this.api.get(this.routes.message, {}, ids, options)).data as M;
  }
}

/** The change feed. */
export class ChangesResource {
  constructor(private readonly api: ConversationApi) {}

  /**
   * Entries from `cursor` (or from the beginning) until the feed is up to date. Iterate `.pages()`
   * to store each page's `next_cursor` after applying it (it is never null: the last page's is
   * where to poll next).
   */
  list(query: ChangesQuery = {}, options?: RequestOptions): PageIterable<Change, ChangesPage> {
    const { cursor: first, start, ...rest } = query;
    return new PageIterable<Change, ChangesPage>((next) => {
      const cursor = next ?? first;
      // `start` chooses where a traversal without a cursor begins; with one it is refused.
      return this.api.get('/v1/changes', cursor ? { ...rest, cursor } : { ...rest, start }, undefined, options);
    });
  }

  /** One page of entries. */
  page(query: ChangesQuery = {}, options?: RequestOptions): Promise<ChangesPage> {
    return this.api.get('/v1/changes', query, undefined, options);
  }
}

/** A fresh `Idempotency-Key`: a random UUID. */
function idempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Your company's webhook endpoints (needs `webhooks.manage`): register, change, pause, remove
 * them, read their deliveries and send events again.
 *
 * What the client retries on its own (`RetryPolicy`): the reads (`list`, `get`, `deliveries`),
 * `create` (it always sends an `Idempotency-Key`, the same on each of its retries: a create
 * retried after a lost answer answers the first endpoint again, never a second one) and `delete`
 * (deleting twice leaves the same state: a retried delete whose first attempt was done answers
 * `404 RESOURCE_NOT_FOUND`, and the endpoint is gone either way) are retried after 429, 5xx and
 * network errors, as every read is. `update`, `rotateSecret`, `retry`, `test` and `replay` are
 * not sent twice once they may have reached the service (a rotation sent again is `409
 * ROTATION_IN_PROGRESS`, a test sent again sends two events): they are retried only after a 429,
 * a stale token or a connection that was never made, and any other failure is thrown for you to
 * decide (read the endpoint or its deliveries to see whether it was done).
 */
export class WebhookEndpointsResource {
  constructor(private readonly api: ConversationApi) {}

  /**
   * `POST /v1/webhook-endpoints`: registers an endpoint; the answer holds its `secret`, shown this
   * once. Sends `Idempotency-Key`: yours (1 to 255 characters; the same key with another body is
   * `409 IDEMPOTENCY_KEY_REUSED`), or a random one made for this call. Errors: `400
   * INVALID_WEBHOOK_URL`, `409 WEBHOOK_ENDPOINT_LIMIT`, `403 INSUFFICIENT_SCOPE` (a type the token
   * cannot read).
   */
  async create(body: WebhookEndpointCreate, options: RequestOptions & { idempotencyKey?: string } = {}): Promise<CreatedWebhookEndpoint> {
    const { idempotencyKey: key, ...request } = options;
    if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 255))
      throw new TypeError(`idempotencyKey must be 1 to 255 characters, not ${JSON.stringify(key)}`);
    const headers = { 'Idempotency-Key': key ?? idempotencyKey() };
    return (await this.api.write('post', '/v1/webhook-endpoints', undefined, body, request, { retry: 'idempotent', headers })).data;
  }

  /** `GET /v1/webhook-endpoints`: the company's endpoints, oldest first. */
  list(query?: WebhookEndpointListQuery, options?: RequestOptions): PageIterable<WebhookEndpoint> {
    return this.api.list<WebhookEndpoint, '/v1/webhook-endpoints'>('/v1/webhook-endpoints', query, undefined, options);
  }

  /** One endpoint; `404 RESOURCE_NOT_FOUND` when it is not the company's. */
  async get(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return (await this.api.get('/v1/webhook-endpoints/{endpoint_id}', {}, { endpoint_id: id }, options)).data;
  }

  /** `PATCH`: changes the fields named; `enabled: false` pauses, `enabled: true` resumes. Not retried once sent. */
  async update(id: string, body: WebhookEndpointUpdate, options?: RequestOptions): Promise<WebhookEndpoint> {
    const path = '/v1/webhook-endpoints/{endpoint_id}';
    return (await this.api.write('patch', path, { endpoint_id: id }, body, options, { retry: 'unsafe' })).data;
  }

  /** `DELETE`: nothing more is sent to it. Retried as a read (see the class). */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.api.write('delete', '/v1/webhook-endpoints/{endpoint_id}', { endpoint_id: id }, undefined, options, { retry: 'idempotent' });
  }

  /** A new signing secret (shown this once); the previous one signs too until `previous_secret_expires_at`. `409 ROTATION_IN_PROGRESS` meanwhile. Not retried once sent. */
  async rotateSecret(id: string, options?: RequestOptions): Promise<RotatedSecret> {
    const path = '/v1/webhook-endpoints/{endpoint_id}/rotate-secret';
    return (await this.api.write('post', path, { endpoint_id: id }, undefined, options, { retry: 'unsafe' })).data;
  }

  /** `GET …/deliveries`: the endpoint's deliveries, newest first (`state` filters them). */
  deliveries(id: string, query?: WebhookDeliveryListQuery, options?: RequestOptions): PageIterable<WebhookDelivery> {
    const path = '/v1/webhook-endpoints/{endpoint_id}/deliveries';
    return this.api.list<WebhookDelivery, typeof path>(path, query, { endpoint_id: id }, options);
  }

  /** Sends that delivery's event again now, as one more attempt. Not retried once sent. */
  async retry(id: string, deliveryId: string, options?: RequestOptions): Promise<DeliveryQueued> {
    const path = '/v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry';
    return (await this.api.write('post', path, { endpoint_id: id, delivery_id: deliveryId }, undefined, options, { retry: 'unsafe' })).data;
  }

  /** Sends a signed `webhook.test` event (a paused endpoint gets it too), recorded as a delivery. Not retried once sent. */
  async test(id: string, options?: RequestOptions): Promise<DeliveryQueued> {
    const path = '/v1/webhook-endpoints/{endpoint_id}/test';
    return (await this.api.write('post', path, { endpoint_id: id }, undefined, options, { retry: 'unsafe' })).data;
  }

  /** Queues again every change after `from` (a feed or event cursor, or a date-time with an offset). Not retried once sent. */
  async replay(id: string, body: WebhookReplay, options?: RequestOptions): Promise<ReplayQueued> {
    const path = '/v1/webhook-endpoints/{endpoint_id}/replay';
    return (await this.api.write('post', path, { endpoint_id: id }, body, options, { retry: 'unsafe' })).data;
  }
}

/** The company's access log (needs `audit.read`). */
export class AuditEventsResource {
  constructor(private readonly api: ConversationApi) {}

  /** `GET /v1/audit-events`: every request made in the company's name, newest first, filtered (`client_id`, `route`, `status`, `resource_id`, `occurred_after`, `occurred_before`). */
  list(query?: AuditEventListQuery, options?: RequestOptions): PageIterable<AuditEvent> {
    return this.api.list<AuditEvent, '/v1/audit-events'>('/v1/audit-events', query, undefined, options);
  }
}
