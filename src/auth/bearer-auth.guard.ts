import { ExecutionContext, Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AuthErrors } from './auth-errors';
import { ApiError } from '../common/errors/api-error';
import { IS_PUBLIC } from '../contract/route-metadata';
import { HEAVY_UNITS } from '../contract/rate-limit-policies';
import { RequestStore } from '../common/http/request-context';
import { routeCost } from '../rate-limit/route-policies';
import { ownsTransaction } from '../database/tenant-transaction.interceptor';
import { FailedAuthLimit } from '../rate-limit/failed-auth-limit';
import { BearerStrategy } from './bearer.strategy';

/**
 * First global guard: every route needs a valid bearer token unless marked @Public(), so a
 * route that forgets its decorator fails closed. Answers 401 MISSING_ACCESS_TOKEN or
 * INVALID_ACCESS_TOKEN, or 403 API_ACCESS_DISABLED (from the credential check). Each 401 counts
 * against its address (FailedAuthLimit); past the limit the address's failures are answered 429
 * instead. A valid token is served from any address: a client behind the same NAT as a flood is
 * not locked out by it, and a request that fails costs only the token's signature check (its
 * client is looked up only once the signature holds), so refusing it sooner would save nothing.
 * A request whose `include` makes it heavy (HEAVY_UNITS) is marked so before its transaction opens.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard() {
  constructor(
    private readonly reflector: Reflector,
    strategy: BearerStrategy,
    private readonly failures: FailedAuthLimit,
    private readonly cls: ClsService<RequestStore>,
  ) {
    super({ defaultStrategy: strategy.registeredName, session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const address = context.switchToHttp().getRequest<Request>().ip;
    // Known before the connection is taken (authentication opens the transaction): a heavy
    // request waits for a heavy turn of its company too (PoolGate.heavy). A route with a
    // transaction of its own ends authentication's before its work, and takes its turns there
    // (the export on its own pool, the audit reader on its own).
    this.cls.set('heavyRequest', !ownsTransaction(this.reflector, context) && routeCost(this.reflector, context, 'client') >= HEAVY_UNITS);
    try {
      return (await super.canActivate(context)) as boolean;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        await this.failures.refuseIfExceeded(address);
        await this.failures.failed(address);
      }
      throw error;
    }
  }

  override handleRequest<T>(error: unknown, principal: T | false, _info: unknown, context: ExecutionContext): T {
    if (error) throw error;
    if (principal) return principal;
    // The strategy found no usable token: none at all, or a malformed Bearer header.
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    throw header !== undefined && /^bearer(\s|$)/i.test(header) ? AuthErrors.invalidToken() : AuthErrors.missingToken();
  }
}
