import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BASE_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { IS_PUBLIC, ROUTE_POLICIES } from '../contract/route-metadata';

/**
 * The policies of the route `context` is about: the declared set, else the base policies for
 * every route that needs a token (so a new `/v1` route is limited without opting in), else
 * none (probes, documentation).
 */
export function routePolicies(reflector: Reflector, context: ExecutionContext): readonly RateLimitPolicyName[] {
  const targets = [context.getHandler(), context.getClass()];
  const declared = reflector.getAllAndOverride<RateLimitPolicyName[] | undefined>(ROUTE_POLICIES, targets);
  if (declared) return declared;
  return reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ? [] : BASE_POLICIES;
}
