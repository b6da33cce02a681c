import { Module } from '@nestjs/common';
import { RuntimeSecrets } from '../config/runtime-secrets';
import { AuditEventIds } from './audit-event-ids';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventsService } from './audit-events.service';

/** `GET /v1/audit-events`: a company reads its own audit trail (scope `audit.read`). */
@Module({
  controllers: [AuditEventsController],
  providers: [
    AuditEventsRepository,
    AuditEventsService,
    { provide: AuditEventIds, inject: [RuntimeSecrets], useFactory: (secrets: RuntimeSecrets) => new AuditEventIds(secrets.cursorSecret) },
  ],
})
export class AuditEventsModule {}
