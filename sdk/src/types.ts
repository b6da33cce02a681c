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
