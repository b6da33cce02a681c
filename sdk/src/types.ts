import type { components, operations, paths } from './generated/openapi.js';

/**
 * The SDK's types, each derived from the OpenAPI document (`generated/openapi.ts`), never restated:
 * the records, the queries of the routes, and the routes themselves; all exported. At the bottom of
 * the SDK's import graph: the client, the export, the pagination and the sync take them from here.
 */
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
/** Where a page of a list stands. */
export type Pagination = Schemas['PaginationDto'];

/** One exported record: as its list route shows it, with the `include` asked for. */
export type ExportRecord = Schemas['MeetingDto'] | Schemas['CallDto'] | Schemas['EmailConversationDto'] | Schemas['ChatConversationDto'];
/** The export's last line: counts by collection and the feed cursor (the `Feed-Cursor` header's; null when the answer was a resumed stream's). */
export type ExportTrailer = Schemas['ExportTrailerDto'];

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

/** The routes that answer a GET with JSON: every one but the export's stream and the token endpoint. */
export type JsonRoute = {
  [P in keyof paths]: paths[P]['get'] extends { responses: { 200: { content: { 'application/json': unknown } } } } ? P : never;
}[keyof paths];
/** The routes that answer a GET with one string whatever its format: the transcripts' captions (WebVTT, SubRip or text). */
export type TextRoute = {
  [P in keyof paths]: paths[P]['get'] extends { responses: { 200: { content: { '*/*': string } } } } ? P : never;
}[keyof paths];
/** The formats of the captions: `vtt` (WebVTT, the default), `srt` (SubRip) or `text` (a `Speaker: text` line per utterance). */
export type CaptionFormat = NonNullable<NonNullable<operations['getMeetingTranscriptCaptions']['parameters']['query']>['format']>;
/** The query of the captions routes. */
export type CaptionsQuery = NonNullable<operations['getMeetingTranscriptCaptions']['parameters']['query']>;
/** The ids a text route's path names. */
export type TextPathParamsOf<P extends TextRoute> = paths[P]['get']['parameters']['path'];
/** The body a route answers with 200. */
export type AnswerOf<P extends JsonRoute> = paths[P]['get']['responses'][200]['content']['application/json'];
/** The ids a route's path names (`undefined` for a route that names none). */
export type PathParamsOf<P extends JsonRoute> = paths[P]['get']['parameters']['path'];

/** A webhook endpoint as the API shows it (never with its secret). */
export type WebhookEndpoint = Schemas['WebhookEndpointDto'];
/** A webhook endpoint just created: with its signing secret (`whsec_…`), shown this once. */
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpointDto'];
/** A create's body: the https URL, the feed types (default: every type the token reads), a description. */
export type WebhookEndpointCreate = Schemas['CreateWebhookEndpointBody'];
/** An update's body: any of `url`, `types`, `description`, `enabled` (`false` pauses, `true` resumes). */
export type WebhookEndpointUpdate = Schemas['UpdateWebhookEndpointBody'];
/** A rotation's answer: the new secret, and until when the previous one signs too. */
export type RotatedSecret = Schemas['RotatedSecretDto'];
/** One event sent to one endpoint: its outcome, never its body. */
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
/** A retry's or a test's answer: the delivery that will be attempted. */
export type DeliveryQueued = Schemas['DeliveryQueuedDto'];
/** A replay's answer: how many events were queued again. */
export type ReplayQueued = Schemas['ReplayQueuedDto'];
/** A replay's body: a feed or event cursor, or an RFC 3339 date-time with an offset. */
export type WebhookReplay = Schemas['ReplayWebhookEndpointBody'];
export type WebhookEndpointListQuery = Query<'listWebhookEndpoints'>;
export type WebhookDeliveryListQuery = Query<'listWebhookDeliveries'>;
/** One request of the company's access log. */
export type AuditEvent = Schemas['AuditEventDto'];
export type AuditEventListQuery = Query<'listAuditEvents'>;

/** The methods that write. */
export type WriteMethod = 'post' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends WriteMethod> = NonNullable<paths[P][M]>;
/** The `/v1` routes that answer `M` (the token endpoint's POST is the transport's). */
export type WriteRoute<M extends WriteMethod> = {
  [P in keyof paths]: P extends `/v1/${string}` ? (paths[P][M] extends { responses: object } ? P : never) : never;
}[keyof paths];
/** The JSON body a write route takes (`undefined` for one that takes none). */
export type WriteBodyOf<M extends WriteMethod, P extends WriteRoute<M>> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : undefined;
/** What a write route answers with its success: its 200, 201 or 202 JSON body, or `undefined` for a 204. */
export type WriteAnswerOf<M extends WriteMethod, P extends WriteRoute<M>> = Operation<P, M>['responses'] extends infer R
  ? R extends { 200: { content: { 'application/json': infer A } } }
    ? A
    : R extends { 201: { content: { 'application/json': infer A } } }
      ? A
      : R extends { 202: { content: { 'application/json': infer A } } }
        ? A
        : undefined
  : never;
/** The ids a write route's path names. */
export type WritePathParamsOf<M extends WriteMethod, P extends WriteRoute<M>> = Operation<P, M>['parameters']['path'];
