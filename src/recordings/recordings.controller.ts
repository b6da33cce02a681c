import { Controller, Get, Param, Query, Req, Type } from '@nestjs/common';
import type { Request } from 'express';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { VaryOn } from '../common/http/vary.interceptor';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { RESPONSE_HEADERS } from '../common/openapi/response-headers';
import { NoQuery } from '../common/validation/query-params';
import { idParamOf, named } from '../conversations/collection-descriptor';
import { IdsFilter } from '../common/validation/query-params';
import { GetRecordingQuery, ListRecordingsQuery, TranscriptQuery } from './list-recordings.query';
import { AnswerListEnvelope, OverallEvaluationEnvelope, TranscriptEnvelope } from './recording.dto';
import { RECORDING_COLLECTIONS, RecordingCollection } from './recording-collections';
import { IncludeCosts } from '../rate-limit/rate-limit.decorators';
import { RecordingsService } from './recordings.service';
import { TRANSCRIPT_MEDIA_TYPES } from './transcript-renditions';

/**
 * The transcript's `200`: the JSON envelope, or the utterances as text in the format asked for;
 * the answer depends on `Accept`, which `Vary` always names.
 */
const TRANSCRIPT_OK = {
  status: 200,
  description:
    'The transcript: JSON (the default), or with `format` (else `Accept`) its utterances as WebVTT, SubRip or plain text (docs/API.md, "Transcript formats").',
  headers: {
    Vary: {
      ...RESPONSE_HEADERS.Vary,
      required: true,
      description: 'Names `Accept`: the format depends on it (and `Accept-Encoding` when the answer may be compressed).',
    },
  },
  content: {
    [TRANSCRIPT_MEDIA_TYPES.json]: { schema: { $ref: getSchemaPath(TranscriptEnvelope) } },
    [TRANSCRIPT_MEDIA_TYPES.vtt]: {
      schema: { type: 'string' as const, description: 'WebVTT, a cue per utterance, `<v Speaker>` voice spans.' },
    },
    [TRANSCRIPT_MEDIA_TYPES.srt]: {
      schema: { type: 'string' as const, description: 'SubRip, a cue per utterance, numbered from 1, `Speaker: text`.' },
    },
    [TRANSCRIPT_MEDIA_TYPES.text]: { schema: { type: 'string' as const, description: 'A `Speaker: text` line per utterance.' } },
  },
};

/**
 * The five routes of a collection, declared once and instantiated for meetings and for
 * calls: same handlers, the collection's path, id parameter, scope and schemas.
 */
function recordingsController(c: RecordingCollection): Type {
  const param = idParamOf(c);

  /** The list's query, its `ids` of this collection. */
  class ListQuery extends ListRecordingsQuery {}
  IdsFilter(c.idKind, `Only these ${c.noun}s (combined with the other filters), in the list's order.`)(ListQuery.prototype, 'ids');

  @ApiTags(c.tag)
  @Controller(c.path)
  class RecordingsController {
    constructor(readonly recordings: RecordingsService) {}

    @Get()
    @Authenticated(c.scope)
    @ApiOperation({
      operationId: `list${c.operationNoun}s`,
      summary: `List ${c.noun}s`,
      description:
        'Ordered by `created_at`, then id; keyset pagination. A page may hold fewer records than `limit` when its body reaches the byte budget: only `has_more` says whether more follow.',
    })
    @ApiOkResponse({ type: c.schemas.list })
    @IncludeCosts('transcript', 'evaluation', 'answers')
    list(@Query() query: ListQuery) {
      return this.recordings.list(c, query);
    }

    @Get(`:${c.idParam}`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `get${c.operationNoun}`, summary: `Retrieve a ${c.noun}` })
    @ApiParam(param)
    @ApiOkResponse({ type: c.schemas.single })
    @ApiNotFound()
    @IncludeCosts('transcript', 'evaluation', 'answers')
    get(@Param(c.idParam) id: string, @Query() query: GetRecordingQuery) {
      return this.recordings.get(c, id, query);
    }

    @Get(`:${c.idParam}/evaluations/overall`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `get${c.operationNoun}OverallEvaluation`, summary: `The ${c.noun}'s overall evaluation` })
    @ApiParam(param)
    @ApiOkResponse({ type: OverallEvaluationEnvelope })
    @ApiNotFound()
    overallEvaluation(@Param(c.idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.overallEvaluation(c, id);
    }

    @Get(`:${c.idParam}/answers`)
    @Authenticated(c.scope)
    @ApiOperation({
      operationId: `list${c.operationNoun}Answers`,
      summary: `Answers to the ${c.noun}'s default template, in question order`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: AnswerListEnvelope })
    @ApiNotFound()
    answers(@Param(c.idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.answers(c, id);
    }

    @Get(`:${c.idParam}/transcript`)
    @Authenticated(c.scope, c.contentScope)
    @ApiOperation({
      operationId: `get${c.operationNoun}Transcript`,
      summary: `The ${c.noun}'s transcript (enhanced when available, else original)`,
      description:
        'As JSON, or as WebVTT, SubRip or plain text: chosen by `format`, else by `Accept` (`text/vtt`, `application/x-subrip`, `text/plain`; anything else JSON). A text format shows the JSON answer\'s utterances, in its order, normalised as docs/API.md says ("Transcript formats"); an unavailable transcript has none, so a text format answers it `404`. Errors are always JSON.',
    })
    @ApiParam(param)
    @ApiExtraModels(TranscriptEnvelope)
    @ApiResponse(TRANSCRIPT_OK)
    @ApiNotFound('or, in a text format, a transcript that is not available (its status in the detail)')
    @VaryOn('Accept')
    // The request, not @Headers('accept'): the document would list Accept as a parameter, which OpenAPI forbids.
    transcript(@Param(c.idParam) id: string, @Query() query: TranscriptQuery, @Req() req: Request) {
      return this.recordings.transcript(c, id, { format: query.format, accept: req.headers.accept });
    }
  }
  return named(RecordingsController, c);
}

export const MeetingsController = recordingsController(RECORDING_COLLECTIONS.meeting);
export const CallsController = recordingsController(RECORDING_COLLECTIONS.call);
