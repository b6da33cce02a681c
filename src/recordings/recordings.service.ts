import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { Collection, keysetPage, openTimeIdCursor, Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { JsonText } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { ListRecordingsQuery } from './list-recordings.query';
import { AnswerDto, OverallEvaluationDto, TranscriptDto } from './recording.dto';
import { presentAnswers, presentEvaluation, presentTranscript } from './recording.presenter';
import { RecordingCollection } from './recording-collections';
import { RecordingsRepository } from './recordings.repository';

/** Meetings and calls: one implementation, told by each call which collection it serves. */
@Injectable()
export class RecordingsService {
  constructor(
    private readonly recordings: RecordingsRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  /** A page of records, each as the JSON text PostgreSQL rendered (recording.sql.ts). */
  async list(c: RecordingCollection, query: ListRecordingsQuery): Promise<Page<JsonText>> {
    const company = principalOf(this.cls).companyId;
    const binding = { route: c.listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.recordings.listPage(company, c.kind, query, after, query.limit + 1);
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.created_micros, r.id],
      (page) => page.map((r) => new JsonText(r.document, r.public_id)),
      this.codec,
      binding,
    );
  }

  async get(c: RecordingCollection, id: string): Promise<JsonText> {
    const row = await this.recordings.findOne(principalOf(this.cls).companyId, c.kind, this.publicId(c, id));
    if (!row) throw ApiError.notFound();
    return new JsonText(row.document, row.public_id);
  }

  async overallEvaluation(c: RecordingCollection, id: string): Promise<OverallEvaluationDto> {
    const row = await this.recordings.findEvaluation(principalOf(this.cls).companyId, c.kind, this.publicId(c, id));
    if (!row) throw ApiError.notFound();
    return presentEvaluation(row);
  }

  async answers(c: RecordingCollection, id: string): Promise<Collection<AnswerDto>> {
    const row = await this.recordings.findAnswers(principalOf(this.cls).companyId, c.kind, this.publicId(c, id));
    if (!row) throw ApiError.notFound();
    return new Collection(presentAnswers(row));
  }

  async transcript(c: RecordingCollection, id: string): Promise<TranscriptDto> {
    const row = await this.recordings.findTranscript(principalOf(this.cls).companyId, c.kind, this.publicId(c, id));
    if (!row) throw ApiError.notFound();
    return presentTranscript(row);
  }

  /** A malformed id, or one of the other collection, is simply not found. */
  private publicId(c: RecordingCollection, id: string): string {
    const parsed = parseId(c.idKind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}
