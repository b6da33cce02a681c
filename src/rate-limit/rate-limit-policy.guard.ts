import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { RATE_LIMIT_POLICY_HEADER } from './rate-limit-headers';
import { routeCost, routePolicies } from './route-policies';
import { RateLimiter } from './rate-limiter';

/**
 * First global guard: announces the route's policies in `RateLimit-Policy` before anything
 * can refuse the request, so a 401 or 403 carries it too. `RateLimit` (what remains) comes
 * only with a counted request: an unauthenticated caller has no partition to report.
 */
@Injectable()
export class RateLimitPolicyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const policies = routePolicies(this.reflector, context);
    if (policies.length > 0)
      context.switchToHttp().getResponse<Response>().setHeader(
        RATE_LIMIT_POLICY_HEADER,
        this.limiter.policyHeader(policies, (policy) => routeCost(this.reflector, context, policy)),
      );
    return true;
  }
}
