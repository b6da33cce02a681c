import { Controller, Get, Param, Query, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { ID_PREFIX } from '../common/ids/public-id';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { NoQuery } from '../common/validation/query-params';
import { ListRecordingsQuery } from './list-recordings.query';
import {
  AnswerListEnvelope,
  CallEnvelope,
  CallListEnvelope,
  MeetingEnvelope,
  MeetingListEnvelope,
  OverallEvaluationEnvelope,
  TranscriptEnvelope,
} from './recording.dto';
import { RECORDING_COLLECTIONS, RecordingCollection } from './recording-kind';
import { RecordingsService } from './recordings.service';

/**
 * The five routes of a collection, declared once and instantiated for meetings and for
 * calls: same handlers, the collection's path, id parameter, scope and schemas.
 */
function recordingsController(c: RecordingCollection, tag: string, schemas: { single: Type; list: Type }): Type {
  const idParam = `${c.object}_id`;
  // Stable operation ids named for the API (generated clients' method names): listMeetings, getCallTranscript…
  const noun = c.object === 'meeting' ? 'Meeting' : 'Call';
  const param = { name: idParam, description: `A ${c.object} id (\`${ID_PREFIX[c.idKind]}…\`).` };

  @ApiTags(tag)
  @Controller(c.path)
  class RecordingsController {
    constructor(readonly recordings: RecordingsService) {}

    @Get()
    @Authenticated(c.scope)
    @ApiOperation({
      operationId: `list${noun}s`,
      summary: `List ${c.object}s`,
      description: 'Ordered by `created_at`, then id; keyset pagination.',
    })
    @ApiOkResponse({ type: schemas.list })
    list(@Query() query: ListRecordingsQuery) {
      return this.recordings.list(c.kind, query);
    }

    @Get(`:${idParam}`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `get${noun}`, summary: `Retrieve a ${c.object}` })
    @ApiParam(param)
    @ApiOkResponse({ type: schemas.single })
    @ApiNotFound()
    get(@Param(idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.get(c.kind, id);
    }

    @Get(`:${idParam}/evaluations/overall`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `get${noun}OverallEvaluation`, summary: `The ${c.object}'s overall evaluation` })
    @ApiParam(param)
    @ApiOkResponse({ type: OverallEvaluationEnvelope })
    @ApiNotFound()
    overallEvaluation(@Param(idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.overallEvaluation(c.kind, id);
    }

    @Get(`:${idParam}/answers`)
    @Authenticated(c.scope)
    @ApiOperation({ operationId: `list${noun}Answers`, summary: `Answers to the ${c.object}'s default template, in question order` })
    @ApiParam(param)
    @ApiOkResponse({ type: AnswerListEnvelope })
    @ApiNotFound()
    answers(@Param(idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.answers(c.kind, id);
    }

    @Get(`:${idParam}/transcript`)
    @Authenticated(c.scope, 'transcriptions.read')
    @ApiOperation({ operationId: `get${noun}Transcript`, summary: `The ${c.object}'s transcript (enhanced when available, else original)` })
    @ApiParam(param)
    @ApiOkResponse({ type: TranscriptEnvelope })
    @ApiNotFound()
    transcript(@Param(idParam) id: string, @Query() _query: NoQuery) {
      return this.recordings.transcript(c.kind, id);
    }
  }
  Object.defineProperty(RecordingsController, 'name', { value: `${tag}Controller` });
  return RecordingsController;
}

export const MeetingsController = recordingsController(RECORDING_COLLECTIONS.meeting, 'Meetings', {
  single: MeetingEnvelope,
  list: MeetingListEnvelope,
});
export const CallsController = recordingsController(RECORDING_COLLECTIONS.call, 'Calls', { single: CallEnvelope, list: CallListEnvelope });
