import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { RequestStore } from '../common/http/request-context';
import { AuthErrors } from './auth-errors';
import { REQUIRED_SCOPES } from '../contract/route-metadata';
import { Scope } from '../contract/scopes';

/**
 * Last global guard (after authentication and rate limiting): the token must carry every
 * scope the route declares with @Authenticated(...), else 403 INSUFFICIENT_SCOPE.
 */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    if (!required?.length) return true;
    const principal = this.cls.get('principal');
    if (!principal) throw AuthErrors.missingToken();
    if (!required.every((scope) => principal.scopes.includes(scope))) throw AuthErrors.insufficientScope(required);
    return true;
  }
}
