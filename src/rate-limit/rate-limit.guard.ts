import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error';
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from './rate-limit-headers';
import { RateLimitPolicyName } from '../contract/rate-limit-policies';
import { routeCost, routePolicies } from './route-policies';
import { PolicyDemand, RateLimiter } from './rate-limiter';

/**
 * Third global guard, after authentication and before scopes (the spec's order of checks).
 * The throttler resolves which named throttlers (policies) govern the route and their
 * quotas; instead of counting them one by one (a request refused by one policy would still
 * spend the ones before it), this guard collects them and counts them in one all-or-nothing
 * step, then writes the IETF `RateLimit-Policy` and `RateLimit` headers, not `X-RateLimit-*`.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly collecting = new WeakMap<Request, PolicyDemand[]>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const demands: PolicyDemand[] = [];
    this.collecting.set(req, demands);
    try {
      await super.canActivate(context);
    } finally {
      this.collecting.delete(req);
    }
    if (demands.length === 0) return true;

    const verdict = await this.limiter.consume(demands);
    const res = http.getResponse<Response>();
    res.setHeader(RATE_LIMIT_POLICY_HEADER, verdict.policyHeader);
    res.setHeader(RATE_LIMIT_HEADER, verdict.stateHeader);
    if (!verdict.allowed) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `A rate-limit policy allows no more requests in this window; retry after ${verdict.retryAfterSeconds} seconds.`,
        { 'Retry-After': String(verdict.retryAfterSeconds) },
      );
    }
    return true;
  }

  /** Probes, documentation and other routes without a policy are never counted. */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(routePolicies(this.reflector, context).length === 0);
  }

  /** Called by the throttler once per policy that governs the route: collect, count later. */
  protected override handleRequest({ context, limit, ttl, throttler }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const policy = throttler.name as RateLimitPolicyName;
    this.collecting.get(req)?.push(...this.limiter.demands(policy, req, limit, ttl, routeCost(this.reflector, context, policy)));
    return Promise.resolve(true);
  }
}
