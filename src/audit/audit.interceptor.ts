import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ClsService } from 'nestjs-cls';
import { RequestStore } from '../common/http/request-context';
import { mergeMap, Observable } from 'rxjs';
import { auditEventOf, isAudited, resourceIdsOf } from './audit-event';
import { AuditTrail } from './audit-trail';

/**
 * Records every successful answer of `/v1` and `/oauth/token`, for every route present and
 * future, because it runs around every handler. A `/v1` read is fail-closed: its body is
 * released only after its audit row is committed, else the answer is `503
 * AUDIT_UNAVAILABLE` without the data. Token issuance is recorded on a best-effort basis.
 * Failed requests are recorded by the exception filter (see AuditFailures).
 *
 * Registered outermost, so the tenant transaction has ended before the audit write starts:
 * a slow audit store never holds a database connection of the read path.
 */
const AUDITS_ITSELF = 'audit:itself';

/**
 * A route that writes its own audit rows (the export stream: one fail-closed row before its first
 * byte, one when it ends); a refusal before it started is still recorded by the exception filter.
 */
export const AuditsItself = () => SetMetadata(AUDITS_ITSELF, true);

@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly trail: AuditTrail,
    private readonly cls: ClsService<RequestStore>,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (!isAudited(req) || this.reflector.get<boolean>(AUDITS_ITSELF, context.getHandler())) return next.handle();
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const event = auditEventOf(req, this.cls, res.statusCode, this.cls.get('auditResources') ?? resourceIdsOf(body));
        if (req.surface === 'token') {
          this.trail.recordBestEffort(event);
          return body;
        }
        await this.trail.recordOrRefuse(
          event,
          'The read could not be recorded in the audit trail, so it was not returned; retry with backoff.',
        );
        return body;
      }),
    );
  }
}
