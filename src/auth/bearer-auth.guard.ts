import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AuthErrors } from './auth-errors';
import { IS_PUBLIC } from '../contract/route-metadata';
import { BearerStrategy } from './bearer.strategy';

/**
 * First global guard: every route needs a valid bearer token unless marked @Public(), so a
 * route that forgets its decorator fails closed. Answers 401 MISSING_ACCESS_TOKEN or
 * INVALID_ACCESS_TOKEN, or 403 API_ACCESS_DISABLED (from the credential check).
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard() {
  constructor(
    private readonly reflector: Reflector,
    strategy: BearerStrategy,
  ) {
    super({ defaultStrategy: strategy.registeredName, session: false });
  }

  override canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return super.canActivate(context) as Promise<boolean>;
  }

  override handleRequest<T>(error: unknown, principal: T | false, _info: unknown, context: ExecutionContext): T {
    if (error) throw error;
    if (principal) return principal;
    // The strategy found no usable token: none at all, or a malformed Bearer header.
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    throw header !== undefined && /^bearer(\s|$)/i.test(header) ? AuthErrors.invalidToken() : AuthErrors.missingToken();
  }
}
