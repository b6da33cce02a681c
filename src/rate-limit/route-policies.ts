import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BASE_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import type { Request } from 'express';
import { INCLUDE_POLICIES, IS_PUBLIC, ROUTE_POLICIES } from '../contract/route-metadata';

/**
 * The policies of the route `context` is about: the declared set, else the base policies for
 * every route that needs a token (so a new `/v1` route is limited without opting in), else
 * none (probes, documentation).
 */
export function routePolicies(reflector: Reflector, context: ExecutionContext): readonly RateLimitPolicyName[] {
  const targets = [context.getHandler(), context.getClass()];
  const declared = reflector.getAllAndOverride<RateLimitPolicyName[] | undefined>(ROUTE_POLICIES, targets);
  if (declared) return declared;
  if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return [];
  const byPart = reflector.getAllAndOverride<Record<string, RateLimitPolicyName> | undefined>(INCLUDE_POLICIES, targets);
  if (!byPart) return BASE_POLICIES;
  // The parts the request names (validated later; an invalid include is refused with 400 anyway).
  const include = context.switchToHttp().getRequest<Request>().query?.include;
  const parts = typeof include === 'string' ? include.split(',') : [];
  const added = Object.entries(byPart)
    .filter(([part]) => parts.includes(part))
    .map(([, policy]) => policy);
  return [...BASE_POLICIES, ...new Set(added)];
}
