import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { AuthErrors } from '../auth/auth-errors';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { Collection, keysetPage, openTimeIdCursor, Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { JsonText, withIncluded } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { AppConfig } from '../config/app-config';
import { GetRecordingQuery, ListRecordingsQuery } from './list-recordings.query';
import { AnswerDto, OverallEvaluationDto, RecordingIncludedDto, TranscriptDto } from './recording.dto';
import { presentAnswers, presentEvaluation, presentTranscript } from './recording.presenter';
import { RecordingCollection } from './recording-collections';
import { RecordingPart } from './recording.vocabulary';
import { RecordingsRepository } from './recordings.repository';
import { RecordingDocumentRow } from './recording.sql';

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
    const rows = await this.recordings.listPage(company, c.kind, query, after, query.limit + 1);
    const documents = await this.documents(c, rows.slice(0, query.limit), parts);
    return keysetPage(rows, query.limit, (r) => [r.created_micros, r.id], () => documents, this.codec, binding, this.config.pageBytesMax);
  }

  async get(c: RecordingCollection, id: string, query: GetRecordingQuery = {}): Promise<JsonText> {
    const company = principalOf(this.cls).companyId;
    const parts = this.parts(c, query.include);
    const row = await this.recordings.findOne(company, c.kind, this.publicId(c, id));
    if (!row) throw ApiError.notFound();
    const [document] = await this.documents(c, [row], parts);
    return document;
  }

  /**
   * The records as the list shows them: their rendered text, with the parts asked for spliced in
   * (the export stream writes these lines too). Runs in the current tenant transaction.
   */
  async documents(c: RecordingCollection, rows: RecordingDocumentRow[], parts: readonly RecordingPart[]): Promise<JsonText[]> {
    const included = await this.included(c, parts, rows.map((r) => r.public_id));
    return rows.map((r) => withIncluded(new JsonText(r.document, r.public_id), included?.get(r.public_id)));
  }

  async overallEvaluation(c: RecordingCollection, id: string): Promise<OverallEvaluationDto> {
    const [row] = await this.recordings.evaluations(principalOf(this.cls).companyId, c.kind, [this.publicId(c, id)]);
    if (!row) throw ApiError.notFound();
    return presentEvaluation(row);
  }

  async answers(c: RecordingCollection, id: string): Promise<Collection<AnswerDto>> {
    const [row] = await this.recordings.answers(principalOf(this.cls).companyId, c.kind, [this.publicId(c, id)]);
    if (!row) throw ApiError.notFound();
    return new Collection(presentAnswers(row));
  }

  async transcript(c: RecordingCollection, id: string): Promise<TranscriptDto> {
    const [row] = await this.recordings.transcripts(principalOf(this.cls).companyId, c.kind, [this.publicId(c, id)]);
    if (!row) throw ApiError.notFound();
    return presentTranscript(row);
  }

  /** The parts asked for, once the token is checked for what each part's own route needs (the transcript: transcriptions.read). */
  parts(c: RecordingCollection, include: readonly RecordingPart[] | undefined): readonly RecordingPart[] {
    if (include?.includes('transcript') && !principalOf(this.cls).scopes.includes('transcriptions.read')) {
      throw AuthErrors.insufficientScope([c.scope, 'transcriptions.read']);
    }
    return include ?? [];
  }

  /**
   * Each record's parts, by its public id, read with one statement per part for all of them and
   * presented by the parts' own routes' presenters; undefined when nothing is asked.
   */
  private async included(
    c: RecordingCollection,
    parts: readonly RecordingPart[],
    publicIds: string[],
  ): Promise<Map<string, RecordingIncludedDto> | undefined> {
    if (!parts.length || !publicIds.length) return undefined;
    const company = principalOf(this.cls).companyId;
    const byId = new Map<string, RecordingIncludedDto>(publicIds.map((id) => [id, {}]));
    // One after the other: they share the request's one tenant transaction (one connection).
    for (const part of parts) {
      if (part === 'evaluation') {
        for (const row of await this.recordings.evaluations(company, c.kind, publicIds)) byId.get(row.public_id)!.evaluation = presentEvaluation(row);
      } else if (part === 'answers') {
        for (const row of await this.recordings.answers(company, c.kind, publicIds)) byId.get(row.public_id)!.answers = presentAnswers(row);
      } else {
        for (const row of await this.recordings.transcripts(company, c.kind, publicIds)) byId.get(row.public_id)!.transcript = presentTranscript(row);
      }
    }
    return byId;
  }

  /** A malformed id, or one of the other collection, is simply not found. */
  private publicId(c: RecordingCollection, id: string): string {
    const parsed = parseId(c.idKind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}
