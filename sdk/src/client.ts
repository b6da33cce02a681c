import createClient from 'openapi-fetch';
import { ApiError } from './errors.js';
import { ExportStream, ExportStreamOptions } from './export.js';
import type { components, operations, paths } from './generated/openapi.js';
import { Page, PageIterable } from './pagination.js';
import type { RateLimitState } from './rate-limit.js';
import { RequestOptions, Transport, TransportOptions } from './transport.js';
import { SyncOptions, SyncResult, SyncStore, syncCopy } from './sync.js';

type Schemas = components['schemas'];
export type Context = Schemas['ContextDto'];
export type Meeting = Schemas['MeetingDto'];
export type Call = Schemas['CallDto'];
export type OverallEvaluation = Schemas['OverallEvaluationDto'];
export type Answer = Schemas['AnswerDto'];
export type Transcript = Schemas['TranscriptDto'];
export type EmailConversation = Schemas['EmailConversationDto'];
export type EmailMessage = Schemas['EmailMessageDto'];
export type ChatConversation = Schemas['ChatConversationDto'];
export type ChatMessage = Schemas['ChatMessageDto'];
export type Change = Schemas['ChangeDto'];
export type ChangesPage = Schemas['ChangesPageEnvelope'];

/** The parts `include` embeds: a recording's, a conversation's. */
export type RecordingPart = 'evaluation' | 'answers' | 'transcript';
export type ConversationPart = 'messages';
export type ChangeType = Change['object'];
export type ExportType = 'meeting' | 'call' | 'email' | 'chat';

/** A query as the route documents it, where the comma-separated lists (`ids`, `include`, `types`) may also be arrays. */
type Query<O extends keyof operations, Lists extends Record<string, string> = Record<never, string>> = Omit<
  NonNullable<operations[O]['parameters']['query']>,
  keyof Lists | 'cursor'
> & { [K in keyof Lists]?: string | readonly Lists[K][] };

export type MeetingListQuery = Query<'listMeetings', { ids: string; include: RecordingPart }>;
export type CallListQuery = Query<'listCalls', { ids: string; include: RecordingPart }>;
export type EmailListQuery = Query<'listEmails', { ids: string; include: ConversationPart }>;
export type ChatListQuery = Query<'listChats', { ids: string; include: ConversationPart }>;
export type EmailMessageListQuery = Query<'listEmailMessages', { ids: string }>;
export type ChatMessageListQuery = Query<'listChatMessages', { ids: string }>;
export type ChangesQuery = Query<'listChanges', { types: ChangeType }> & { cursor?: string };
export type ExportQuery = Omit<Query<'exportRecords', { types: ExportType; include: RecordingPart | ConversationPart }>, 'after'>;

export interface ConversationApiOptions extends Omit<TransportOptions, 'scopes'> {
  /** Scopes to ask for (default: every scope of the client). */
  scopes?: readonly string[];
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

  constructor(options: ConversationApiOptions) {
    this.transport = new Transport(options);
    this.http = createClient<paths>({ baseUrl: this.transport.baseUrl });
    this.meetings = new RecordingResource(this, '/v1/meetings');
    this.calls = new RecordingResource(this, '/v1/calls');
    this.emails = new ConversationResource(this, '/v1/emails');
    this.chat = new ConversationResource(this, '/v1/chat');
    this.changes = new ChangesResource(this);
  }

  /** The rate-limit state the last counted answer reported (null before any). */
  get rateLimit(): RateLimitState | null {
    return this.transport.rateLimit;
  }

  /** `GET /v1/context`: the token's client, company, scopes and rate-limit state. */
  async context(options?: RequestOptions): Promise<Context> {
    return (await this.get<{ data: Context }>('/v1/context', {}, undefined, options)).data;
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

  /** One GET of a JSON route through the transport; the parsed 200 body. @internal */
  async get<T>(
    path: string,
    query: object | undefined,
    pathParams: Record<string, string> | undefined,
    options: RequestOptions = {},
  ): Promise<T> {
    for (const [name, id] of Object.entries(pathParams ?? {})) {
      // An empty or dot segment would be normalised away and reach another route.
      if (typeof id !== 'string' || id === '' || id === '.' || id === '..')
        throw new TypeError(`${name} must be an id, not ${JSON.stringify(id)}`);
    }
    try {
      const { data } = await this.http.GET(path as '/v1/context', {
        params: { query: serialize(query), path: pathParams } as never,
        fetch: (request: Request) => this.transport.send(request, options),
      });
      return data as T;
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new ApiError({ status: 200, code: 'INVALID_RESPONSE', detail: `${path}: the answer is not JSON`, cause: error });
      throw error;
    }
  }

  /** A list route as an iterable of its items. @internal */
  list<T, P extends Page<T> = Page<T>>(
    path: string,
    query: object | undefined,
    pathParams: Record<string, string> | undefined,
    options?: RequestOptions,
  ): PageIterable<T, P> {
    return new PageIterable<T, P>((cursor) => this.get<P>(path, { ...query, cursor }, pathParams, options));
  }
}

/** Meetings and calls: lists, details, and each one's evaluation, answers and transcript. */
export class RecordingResource<R, Q extends object> {
  private readonly param: string;
  constructor(
    private readonly api: ConversationApi,
    private readonly path: '/v1/meetings' | '/v1/calls',
  ) {
    this.param = path === '/v1/meetings' ? 'meeting_id' : 'call_id';
  }

  /** Every record matching the filters, newest first; `include` embeds parts, `ids` picks up to 100. */
  list(query?: Q, options?: RequestOptions): PageIterable<R> {
    return this.api.list<R>(this.path, query, undefined, options);
  }

  /** One record by id (`include` embeds parts); `ApiError` 404 `RESOURCE_NOT_FOUND` when it is not the company's. */
  async get(id: string, query: { include?: string | readonly RecordingPart[] } = {}, options?: RequestOptions): Promise<R> {
    return (await this.api.get<{ data: R }>(`${this.path}/{${this.param}}`, query, { [this.param]: id }, options)).data;
  }

  /** Its overall evaluation (`status: not_started` and nulls before one exists). */
  async evaluation(id: string, options?: RequestOptions): Promise<OverallEvaluation> {
    return (
      await this.api.get<{ data: OverallEvaluation }>(`${this.path}/{${this.param}}/evaluations/overall`, {}, { [this.param]: id }, options)
    ).data;
  }

  /** The answers to its default template's questions, in question order. */
  async answers(id: string, options?: RequestOptions): Promise<Answer[]> {
    return (await this.api.get<{ data: Answer[] }>(`${this.path}/{${this.param}}/answers`, {}, { [this.param]: id }, options)).data;
  }

  /** Its transcript (needs `transcriptions.read`): `available: false` with its status when there is none to read. */
  async transcript(id: string, options?: RequestOptions): Promise<Transcript> {
    return (await this.api.get<{ data: Transcript }>(`${this.path}/{${this.param}}/transcript`, {}, { [this.param]: id }, options)).data;
  }
}

/** E-mail and chat conversations, and their messages. */
export class ConversationResource<C, M, Q extends object, MQ extends object> {
  private readonly param: string;
  constructor(
    private readonly api: ConversationApi,
    private readonly path: '/v1/emails' | '/v1/chat',
  ) {
    this.param = path === '/v1/emails' ? 'email_id' : 'chat_id';
  }

  /** Every conversation matching the filters; `include: ['messages']` embeds each one's messages, `ids` picks up to 100. */
  list(query?: Q, options?: RequestOptions): PageIterable<C> {
    return this.api.list<C>(this.path, query, undefined, options);
  }

  /** One conversation by id (`include: ['messages']` embeds its messages). */
  async get(id: string, query: { include?: string | readonly ConversationPart[] } = {}, options?: RequestOptions): Promise<C> {
    return (await this.api.get<{ data: C }>(`${this.path}/{${this.param}}`, query, { [this.param]: id }, options)).data;
  }

  /** Its messages, oldest first (needs the channel's content scope). */
  messages(id: string, query?: MQ, options?: RequestOptions): PageIterable<M> {
    return this.api.list<M>(`${this.path}/{${this.param}}/messages`, query, { [this.param]: id }, options);
  }

  /** One of its messages by id, as its page shows it. */
  async message(id: string, messageId: string, options?: RequestOptions): Promise<M> {
    return (
      await this.api.get<{ data: M }>(
        `${this.path}/{${this.param}}/messages/{message_id}`,
        {},
        { [this.param]: id, message_id: messageId },
        options,
      )
    ).data;
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
      return this.api.get<ChangesPage>('/v1/changes', cursor ? { ...rest, cursor } : { ...rest, start }, undefined, options);
    });
  }

  /** One page of entries. */
  page(query: ChangesQuery = {}, options?: RequestOptions): Promise<ChangesPage> {
    return this.api.get<ChangesPage>('/v1/changes', query, undefined, options);
  }
}
