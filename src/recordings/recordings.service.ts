import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { Collection, keysetPage, openTimeIdCursor, Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { ListRecordingsQuery } from './list-recordings.query';
import { AnswerDto, CallDto, MeetingDto, OverallEvaluationDto, TranscriptDto } from './recording.dto';
import { presentAnswers, presentEvaluation, presentRecording, presentTranscript } from './recording.presenter';
import { RECORDING_COLLECTIONS } from './recording-kind';
import { RecordingKind } from './recording.vocabulary';
import { RecordingsRepository } from './recordings.repository';

/** Meetings and calls: one implementation, parameterised by the kind of the route. */
@Injectable()
export class RecordingsService {
  constructor(
    private readonly recordings: RecordingsRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async list(kind: RecordingKind, query: ListRecordingsQuery): Promise<Page<CallDto | MeetingDto>> {
    const company = principalOf(this.cls).companyId;
    const binding = { route: RECORDING_COLLECTIONS[kind].listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.recordings.listPage(company, kind, query, after, query.limit + 1);
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.created_micros, r.id],
      (page) => page.map(presentRecording),
      this.codec,
      binding,
    );
  }

  async get(kind: RecordingKind, id: string): Promise<CallDto | MeetingDto> {
    const row = await this.recordings.findOne(principalOf(this.cls).companyId, kind, this.publicId(kind, id));
    if (!row) throw ApiError.notFound();
    return presentRecording(row);
  }

  async overallEvaluation(kind: RecordingKind, id: string): Promise<OverallEvaluationDto> {
    const row = await this.recordings.findEvaluation(principalOf(this.cls).companyId, kind, this.publicId(kind, id));
    if (!row) throw ApiError.notFound();
    return presentEvaluation(row);
  }

  async answers(kind: RecordingKind, id: string): Promise<Collection<AnswerDto>> {
    const row = await this.recordings.findAnswers(principalOf(this.cls).companyId, kind, this.publicId(kind, id));
    if (!row) throw ApiError.notFound();
    return new Collection(presentAnswers(row));
  }

  async transcript(kind: RecordingKind, id: string): Promise<TranscriptDto> {
    const row = await this.recordings.findTranscript(principalOf(this.cls).companyId, kind, this.publicId(kind, id));
    if (!row) throw ApiError.notFound();
    return presentTranscript(row);
  }

  /** A malformed id, or one of the other collection, is simply not found. */
  private publicId(kind: RecordingKind, id: string): string {
    const parsed = parseId(RECORDING_COLLECTIONS[kind].idKind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}
