import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { Page } from '../common/cursors/keyset-page';
import { OwnTransaction } from '../database/tenant-transaction.interceptor';
import { AuditEventDto, AuditEventsPageEnvelope } from './audit-event.dto';
import { AuditEventsService } from './audit-events.service';
import { FILTERED_AUDIT_READ_UNITS } from '../contract/rate-limit-policies';
import { FilterCosts } from '../rate-limit/rate-limit.decorators';
import { ListAuditEventsQuery } from './list-audit-events.query';

@ApiTags('Audit events')
@Controller('v1/audit-events')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @Authenticated('audit.read')
  // The trail is read on connections of its own (maybe another database): the tenant transaction
  // authentication opened is ended first, not held idle meanwhile; client names are read in one of their own.
  @OwnTransaction()
  // A filter judged row by row examines up to AUDIT_SCAN_ROWS events: it costs like a page of transcripts.
  @FilterCosts(FILTERED_AUDIT_READ_UNITS, 'resource_id', 'route', 'status', 'client_id')
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: "The company's own audit trail: which client read what, and when",
    description:
      'Every request made to the API and the token endpoint in the company’s name, newest first; keyset pagination, stable while new events arrive (they are newer than any page already read). ' +
      'Events are kept for the trail’s retention (AUDIT_RETENTION_DAYS, 365 days by default). Reading this route is itself recorded.',
  })
  @ApiOkResponse({ type: AuditEventsPageEnvelope })
  list(@Query() query: ListAuditEventsQuery): Promise<Page<AuditEventDto>> {
    return this.events.list(query);
  }
}
