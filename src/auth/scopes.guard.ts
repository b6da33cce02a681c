import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { RequestStore } from '../common/http/request-context';
import { AuthErrors } from './auth-errors';
import { ANY_OF_SCOPES, REQUIRED_SCOPES } from '../contract/route-metadata';
import { Scope } from '../contract/scopes';

/**
 * Last global guard (after authentication and rate limiting): the token must carry every
 * scope the route declares with @Authenticated(...), and at least one of those it declares
 * with @AuthenticatedByAnyOf(...), else 403 INSUFFICIENT_SCOPE.
 */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets) ?? [];
    const anyOf = this.reflector.getAllAndOverride<Scope[] | undefined>(ANY_OF_SCOPES, targets) ?? [];
    if (!required.length && !anyOf.length) return true;
    const principal = this.cls.get('principal');
    if (!principal) throw AuthErrors.missingToken();
    if (!required.every((scope) => principal.scopes.includes(scope))) throw AuthErrors.insufficientScope(required);
    if (anyOf.length && !anyOf.some((scope) => principal.scopes.includes(scope))) throw AuthErrors.insufficientScope(anyOf, true);
    return true;
  }
}
