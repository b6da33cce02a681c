import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { from, lastValueFrom, Observable } from 'rxjs';
import { RequestStore } from '../common/http/request-context';
import { TenantTransaction } from './tenant-transaction';

/** Wraps every authenticated request's handler in its tenant transaction. */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly tenant: TenantTransaction,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const principal = this.cls.get('principal');
    if (!principal) return next.handle();
    // Authentication opened it (with the client's state, in one round trip): the work runs in it.
    return from(this.tenant.runOpened(principal.companyId, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
