import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedByAnyOf } from '../auth/auth.decorators';
import { ChangeDto, ChangesPageEnvelope } from './change.dto';
import { FEED_SCOPES } from './change.vocabulary';
import { ChangesService } from './changes.service';
import { ListChangesQuery } from './list-changes.query';
import { Page } from '../common/cursors/keyset-page';

@ApiTags('Changes')
@Controller('v1/changes')
export class ChangesController {
  constructor(private readonly changes: ChangesService) {}

  @Get()
  @AuthenticatedByAnyOf(...FEED_SCOPES)
  @ApiOperation({
    operationId: 'listChanges',
    summary: 'The change feed: every object created, updated or deleted, in commit order',
    description:
      "Entries come in commit order, a transaction's entries together, and only once every transaction that could precede them has finished: nothing is ever skipped. " +
      'At least once: fetch the current state of what an entry names. `pagination.next_cursor` is never null: store it and poll with it; cursors never expire. ' +
      "Entries are only of the object types the token can read (a message type needs its channel's content scope too); asking for another type is `403 INSUFFICIENT_SCOPE`.",
  })
  @ApiOkResponse({ type: ChangesPageEnvelope })
  list(@Query() query: ListChangesQuery): Promise<Page<ChangeDto>> {
    return this.changes.list(query);
  }
}
