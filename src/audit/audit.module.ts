import { Global, Module } from '@nestjs/common';
import { FailedRequests } from '../common/errors/failed-requests';
import { AuditFailures } from './audit-failures';
import { AuditTrail } from './audit-trail';

/** The audit trail: its writer, and the failure recorder the exception filter tells (AuditInterceptor records successful answers). */
@Global()
@Module({
  providers: [AuditTrail, { provide: FailedRequests, useClass: AuditFailures }],
  exports: [AuditTrail, FailedRequests],
})
export class AuditModule {}
