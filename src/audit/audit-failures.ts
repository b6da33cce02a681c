import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { FailedRequests } from '../common/errors/failed-requests';
import { RequestStore } from '../common/http/request-context';
import { auditEventOf, isAudited } from './audit-event';
import { AuditTrail } from './audit-trail';

/**
 * Failed requests (4xx, 5xx, including `503 AUDIT_UNAVAILABLE` itself) are recorded on a
 * best-effort basis by the exception filter, which every failure passes through: a lost row
 * never changes the answer, it is counted and logged.
 */
@Injectable()
export class AuditFailures extends FailedRequests {
  constructor(
    private readonly trail: AuditTrail,
    private readonly cls: ClsService<RequestStore>,
  ) {
    super();
  }

  failed(req: Request, status: number): void {
    if (isAudited(req)) this.trail.recordBestEffort(auditEventOf(req, this.cls, status));
  }
}
