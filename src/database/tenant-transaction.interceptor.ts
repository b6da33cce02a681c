import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { from, lastValueFrom, Observable } from 'rxjs';
import { RequestStore } from '../common/http/request-context';
import { TenantTransaction } from './tenant-transaction';

const OWN_TRANSACTION = 'database:own-transaction';

/**
 * A route that opens its tenant transaction itself (the export stream: a repeatable-read
 * snapshot, held while a slow reader drains it), so the one authentication opened is ended
 * before its work runs, instead of holding a second connection for as long.
 */
export const OwnTransaction = () => SetMetadata(OWN_TRANSACTION, true);

/** Whether the route `context` is about opens its own transaction (OwnTransaction). */
export const ownsTransaction = (reflector: Reflector, context: ExecutionContext): boolean =>
  reflector.get<boolean>(OWN_TRANSACTION, context.getHandler()) === true;

/** Wraps every authenticated request's handler in its tenant transaction. */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly tenant: TenantTransaction,
    private readonly cls: ClsService<RequestStore>,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const principal = this.cls.get('principal');
    if (!principal) return next.handle();
    if (ownsTransaction(this.reflector, context)) {
      return from(this.tenant.abandon().then(() => lastValueFrom(next.handle(), { defaultValue: undefined })));
    }
    // Authentication opened it (with the client's state, in one round trip): the work runs in it.
    return from(this.tenant.runOpened(principal.companyId, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
