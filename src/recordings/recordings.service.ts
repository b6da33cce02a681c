import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { AuthErrors } from '../auth/auth-errors';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { JsonText, SerializedBody, withIncludedText } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { AppConfig } from '../config/app-config';
import { GetRecordingQuery, ListRecordingsQuery } from './list-recordings.query';
import { RecordingCollection } from './recording-collections';
import { TranscriptDto } from './recording.dto';
import { CaptionFormat, RecordingPart } from './recording.vocabulary';
import { RecordingsRepository } from './recordings.repository';
import { RecordingDocumentRow } from './recording.sql';
import { captionFormatOf, renderTranscript } from './transcript-renditions';

/** Meetings and calls: one implementation, told by each call which collection it serves. */
@Injectable()
export class RecordingsService {
  constructor(
    private readonly recordings: RecordingsRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
    private readonly config: AppConfig,
  ) {}

  /**
   * A page of records, each as the JSON text PostgreSQL rendered (recording.sql.ts), with the
   * parts `include` asks for spliced in; cut short at the byte budget (PAGE_BYTES_MAX).
   */
  async list(c: RecordingCollection, query: ListRecordingsQuery): Promise<Page<JsonText>> {
    const company = principalOf(this.cls).companyId;
    const parts = this.parts(c, query.include);
    const binding = { route: c.listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.recordings.listPage(company, c.kind, query, after, query.limit + 1, parts);
    const documents = this.documents(rows.slice(0, query.limit));
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.created_micros, r.id],
      () => documents,
      this.codec,
      binding,
      this.config.pageBytesMax,
    );
  }

  async get(c: RecordingCollection, id: string, query: GetRecordingQuery = {}): Promise<JsonText> {
    const company = principalOf(this.cls).companyId;
    const parts = this.parts(c, query.include);
    const row = await this.recordings.findOne(company, c.kind, this.publicId(c, id), parts);
    if (!row) throw ApiError.notFound();
    return this.documents([row])[0];
  }

  /**
   * The records as the list shows them: their rendered text, with the `included` text the
   * statement rendered beside it (when parts were asked) spliced in. The export writes these too.
   */
  documents(rows: RecordingDocumentRow[]): JsonText[] {
    return rows.map((r) => withIncludedText(new JsonText(r.document, r.public_id), r.included));
  }

  /** The overall evaluation, as `include=evaluation` embeds it. */
  overallEvaluation(c: RecordingCollection, id: string): Promise<JsonText> {
    return this.part(c, id, 'evaluation');
  }

  /** The answers, in question order: the list `include=answers` embeds, rendered whole (a Collection's `data`). */
  answers(c: RecordingCollection, id: string): Promise<JsonText> {
    return this.part(c, id, 'answers');
  }

  /** The transcript as JSON: exactly what `include=transcript` embeds (`available: false` with its status when unreadable). */
  transcript(c: RecordingCollection, id: string): Promise<JsonText> {
    return this.part(c, id, 'transcript');
  }

  /**
   * The transcript's utterances as captions in the format the request asks for (`format`, else
   * `Accept`, else WebVTT): rendered from the object the transcript route answers, audited under
   * the same ids. Unavailable, a transcript has no text to render: 404, its status in the detail
   * (the JSON answer says `available: false`).
   */
  async captions(c: RecordingCollection, id: string, request: { format?: CaptionFormat; accept?: string } = {}): Promise<SerializedBody> {
    const json = await this.part(c, id, 'transcript');
    const transcript = JSON.parse(json.text) as TranscriptDto;
    if (!transcript.available) {
      throw ApiError.notFound(`The ${c.noun}'s transcript is not available: its status is ${transcript.status}.`);
    }
    const { text, contentType } = renderTranscript(captionFormatOf(request.format, request.accept), transcript.utterances);
    return new SerializedBody([text], [...json.resourceIds], contentType);
  }

  /** A part's own route: the text include embeds (one definition), with the ids the trail records. */
  private async part(c: RecordingCollection, id: string, part: RecordingPart): Promise<JsonText> {
    const row = await this.recordings.part(principalOf(this.cls).companyId, c.kind, this.publicId(c, id), part);
    if (!row) throw ApiError.notFound();
    return new JsonText(row.part, id, row.resource_ids);
  }

  /** The parts asked for, once the token is checked for what each part's own route needs (the transcript: transcriptions.read). */
  parts(c: RecordingCollection, include: readonly RecordingPart[] | undefined): readonly RecordingPart[] {
    if (include?.includes('transcript') && !principalOf(this.cls).scopes.includes(c.contentScope)) {
      throw AuthErrors.insufficientScope([c.scope, c.contentScope]);
    }
    return include ?? [];
  }

  /** A malformed id, or one of the other collection, is simply not found. */
  private publicId(c: RecordingCollection, id: string): string {
    const parsed = parseId(c.idKind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}
