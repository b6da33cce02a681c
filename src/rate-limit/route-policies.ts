import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BASE_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import type { Request } from 'express';
import { FILTER_COSTS, INCLUDE_COSTS, INCLUDE_POLICIES, IS_PUBLIC, ROUTE_POLICIES } from '../contract/route-metadata';

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
  const parts = includeParts(context);
  const added = Object.entries(byPart)
    .filter(([part]) => parts.includes(part))
    .map(([, policy]) => policy);
  return [...BASE_POLICIES, ...new Set(added)];
}

/**
 * The units the request costs each policy of its route: 1, and for the base policies, the
 * units of a filter it names that the route counts (FilterCosts), and of each `include` part it names that the route counts (each part once: a part named
 * twice is refused with 400 anyway).
 */
export function routeCost(reflector: Reflector, context: ExecutionContext, policy: RateLimitPolicyName): number {
  return BASE_POLICIES.includes(policy) ? baseCost(reflector, context) : 1;
}

/**
 * What the base policies cost, per request: computed by the first guard that asks (the policy
 * guard announcing it, or authentication marking a heavy request) and read by the others (the
 * rate-limit guard counting it). The request's route and query do not change between guards.
 */
const baseCosts = new WeakMap<Request, number>();

function baseCost(reflector: Reflector, context: ExecutionContext): number {
  const req = context.switchToHttp().getRequest<Request>();
  let cost = baseCosts.get(req);
  if (cost === undefined) {
    cost = computeBaseCost(reflector, context);
    baseCosts.set(req, cost);
  }
  return cost;
}

function computeBaseCost(reflector: Reflector, context: ExecutionContext): number {
  const targets = [context.getHandler(), context.getClass()];
  const filters = reflector.getAllAndOverride<{ units: number; params: string[] } | undefined>(FILTER_COSTS, targets);
  const query = context.switchToHttp().getRequest<Request>().query ?? {};
  const filtered = filters && filters.params.some((p) => query[p] !== undefined) ? filters.units : 0;
  const units = reflector.getAllAndOverride<Record<string, number> | undefined>(INCLUDE_COSTS, targets);
  if (!units) return 1 + filtered;
  return [...new Set(includeParts(context))].reduce((cost, part) => cost + (Object.hasOwn(units, part) ? units[part] : 0), 1 + filtered);
}

/** The parts the request's `include` names (validated later; an invalid include is refused with 400 anyway). */
function includeParts(context: ExecutionContext): string[] {
  const include = context.switchToHttp().getRequest<Request>().query?.include;
  return typeof include === 'string' ? include.split(',') : [];
}
