import { Global, Module } from '@nestjs/common';
import { AuditFailures } from './audit-failures';
import { AuditInterceptor } from './audit.interceptor';
import { AuditTrail } from './audit-trail';

/** The audit trail: its writer, the interceptor of successful answers, and the failure recorder. */
@Global()
@Module({
  providers: [AuditTrail, AuditInterceptor, AuditFailures],
  exports: [AuditTrail, AuditInterceptor, AuditFailures],
})
export class AuditModule {}
