import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { NoQuery } from '../common/validation/query-params';
import { ContextDto, ContextEnvelope } from './context.dto';
import { ContextService } from './context.service';

@ApiTags('Context')
@Controller('v1/context')
export class ContextController {
  constructor(private readonly context: ContextService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ operationId: 'getContext', summary: 'The API client, company, scopes and rate-limit state of the token' })
  @ApiOkResponse({ type: ContextEnvelope })
  get(@Query() _query: NoQuery): Promise<ContextDto> {
    return this.context.current();
  }
}
