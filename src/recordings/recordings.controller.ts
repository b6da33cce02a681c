import { Controller, Get, Param, Query, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { NoQuery } from '../common/validation/query-params';
import { idParamOf, named } from '../conversations/collection-descriptor';
import { IdsFilter } from '../common/validation/query-params';
import { GetRecordingQuery, ListRecordingsQuery } from './list-recordings.query';
import { AnswerListEnvelope, OverallEvaluationEnvelope, TranscriptEnvelope } from './recording.dto';
import { RECORDING_COLLECTIONS, RecordingCollection } from './recording-collections';
import { RecordingsService } from './recordings.service';

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
    list(@Query() query: ListQuery) {
      return this.recordings.list(c, query);
    }

    @Get(`:${c.idParam}`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `get${c.operationNoun}`, summary: `Retrieve a ${c.noun}` })
    @ApiParam(param)
    @ApiOkResponse({ type: c.schemas.single })
    @ApiNotFound()
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
    @Authenticated(c.scope, 'transcriptions.read')
    @ApiOperation({
      operationId: `get${c.operationNoun}Transcript`,
      summary: `The ${c.noun}'s transcript (enhanced when available, else original)`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: TranscriptEnvelope })
    @ApiNotFound()
    transcript(@Param(c.idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.transcript(c, id);
    }
  }
  return named(RecordingsController, c);
}

export const MeetingsController = recordingsController(RECORDING_COLLECTIONS.meeting);
export const CallsController = recordingsController(RECORDING_COLLECTIONS.call);
