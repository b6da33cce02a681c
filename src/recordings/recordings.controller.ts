import { Controller, Get, Param, Query, Req, Type } from '@nestjs/common';
import type { Request } from 'express';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { VaryOn } from '../common/http/vary.interceptor';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { RESPONSE_HEADERS } from '../common/openapi/response-headers';
import { NoQuery } from '../common/validation/query-params';
import { idParamOf, named } from '../conversations/collection-descriptor';
import { IdsFilter } from '../common/validation/query-params';
import { CaptionsQuery, GetRecordingQuery, ListRecordingsQuery } from './list-recordings.query';
import { AnswerListEnvelope, OverallEvaluationEnvelope, TranscriptEnvelope } from './recording.dto';
import { RECORDING_COLLECTIONS, RecordingCollection } from './recording-collections';
import { IncludeCosts } from '../rate-limit/rate-limit.decorators';
import { RecordingsService } from './recordings.service';
import { CAPTION_MEDIA_TYPES } from './transcript-renditions';

/**
 * The captions' `200`. The answer is WebVTT, SubRip or plain text, as `format` (else `Accept`)
 * chooses, yet the document gives it ONE media type, the range `*\/*`, with one string schema.
 * Every operation of the document has one media type per success answer (docs/API.md,
 * "Transcripts as captions"), so that a client generated from it types each answer as one
 * thing, here a `string`, and keeps that type when a format is added: a second media type on the
 * transcript route made openapi-fetch's answer `string | {data: …}` and orval rename its
 * response types. Three string-typed keys would leave each generator to decide what several
 * media types make; one key leaves nothing to decide. A range is still true of the wire (a
 * content key may be a media type range, the most specific one applying), where `text/vtt` or
 * `text/plain` alone would be false for the other formats; the media type of each format is in
 * the description. test/e2e/openapi.e2e-spec.ts holds every operation to one media type per
 * success answer; test/e2e/generated-client.e2e-spec.ts compiles a program against a client
 * generated with default options.
 */
const CAPTIONS_OK = {
  status: 200,
  description: `The utterances as captions or text: \`${CAPTION_MEDIA_TYPES.vtt}\` (WebVTT, the default), \`${CAPTION_MEDIA_TYPES.srt}\` (SubRip) or \`${CAPTION_MEDIA_TYPES.text}\`, each \`; charset=utf-8\`, as \`format\` (else \`Accept\`) chooses (docs/API.md, "Transcripts as captions").`,
  headers: {
    Vary: {
      ...RESPONSE_HEADERS.Vary,
      required: true,
      description: 'Names `Accept`: the format depends on it (and `Accept-Encoding` when the answer may be compressed).',
    },
  },
  content: {
    '*/*': {
      schema: {
        type: 'string' as const,
        description:
          'WebVTT (a cue per utterance, `<v Speaker>` voice spans), SubRip (a cue per utterance, numbered from 1, `Speaker: text`) or plain text (a `Speaker: text` line per utterance); the `Content-Type` says which.',
      },
    },
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
      description: `JSON only (\`Accept\` does not change the answer); its utterances as WebVTT, SubRip or plain text are \`GET ${c.path}/{${c.idParam}}/transcript/captions\`.`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: TranscriptEnvelope })
    @ApiNotFound()
    transcript(@Param(c.idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.transcript(c, id);
    }

    @Get(`:${c.idParam}/transcript/captions`)
    @Authenticated(c.scope, c.contentScope)
    @ApiOperation({
      operationId: `get${c.operationNoun}TranscriptCaptions`,
      summary: `The ${c.noun}'s transcript as captions: WebVTT, SubRip or plain text`,
      description:
        'The utterances of the transcript route\'s answer, in its order, as WebVTT (the default), SubRip or plain text: chosen by `format`, else by `Accept` (`text/vtt`, `application/x-subrip`, `text/plain`; anything else WebVTT), normalised as docs/API.md says ("Transcripts as captions"). An unavailable transcript has none: `404`, its status in the detail. Errors are always JSON.',
    })
    @ApiParam(param)
    @ApiResponse(CAPTIONS_OK)
    @ApiNotFound('or a transcript that is not available (its status in the detail)')
    @VaryOn('Accept')
    // The request, not @Headers('accept'): the document would list Accept as a parameter, which OpenAPI forbids.
    captions(@Param(c.idParam) id: string, @Query() query: CaptionsQuery, @Req() req: Request) {
      return this.recordings.captions(c, id, { format: query.format, accept: req.headers.accept });
    }
  }
  return named(RecordingsController, c);
}

export const MeetingsController = recordingsController(RECORDING_COLLECTIONS.meeting);
export const CallsController = recordingsController(RECORDING_COLLECTIONS.call);
