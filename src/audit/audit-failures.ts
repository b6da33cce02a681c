import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { FailedRequests } from '../common/errors/failed-requests';
import { RequestStore } from '../common/http/request-context';
import { auditEventOf, isAudited } from './audit-event';
import { AuditTrail } from './audit-trail';
import { FailedAuthRows } from './failed-auth-rows';

/**
 * Failed requests (4xx, 5xx, including `503 AUDIT_UNAVAILABLE` itself) are recorded on a
 * best-effort basis by the exception filter, which every failure passes through: a lost row
 * never changes the answer, it is counted and logged. Failed authentication (a 401, or a 429 of a
 * caller not authenticated) is gathered per address and reason (FailedAuthRows), so a flood
 * cannot write one row per request.
 */
@Injectable()
export class AuditFailures extends FailedRequests {
  private readonly unauthenticated: FailedAuthRows;

  constructor(
    private readonly trail: AuditTrail,
    private readonly cls: ClsService<RequestStore>,
  ) {
    super();
    this.unauthenticated = new FailedAuthRows((event) => this.trail.recordBestEffort(event));
    // The rows still gathered are written as the trail closes.
    trail.beforeClose(() => this.unauthenticated.flush());
  }

  failed(req: Request, status: number, code: string): void {
    if (!isAudited(req)) return;
    const event = auditEventOf(req, this.cls, status);
    if (status === 401 || (status === 429 && !this.cls.get('principal'))) this.unauthenticated.record(event, code);
    else this.trail.recordBestEffort(event);
  }
}
