import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { BASE_POLICIES, ContentPolicyName, INCLUDE_UNITS, IncludeUnitPart, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { FILTER_COSTS, INCLUDE_COSTS, INCLUDE_POLICIES, POLICIES_EXTENSION, ROUTE_POLICIES } from '../contract/route-metadata';

/** A route governed by exactly these policies (declared on the token endpoint and the content routes). */
export function RateLimitPolicies(...policies: RateLimitPolicyName[]): MethodDecorator {
  return applyDecorators(SetMetadata(ROUTE_POLICIES, policies), ApiExtension(POLICIES_EXTENSION, policies));
}

/** A `/v1` route governed by a content policy in addition to the client and company policies. */
export function ContentPolicy(name: ContentPolicyName): MethodDecorator {
  return RateLimitPolicies(...BASE_POLICIES, name);
}

/**
 * A `/v1` route governed by the base policies, and by `policy` too when its `include` names
 * `part` (a list of conversations with `include=messages` counts like a read of messages).
 */
export function IncludePolicy(part: string, policy: ContentPolicyName): MethodDecorator {
  return applyDecorators(
    SetMetadata(INCLUDE_POLICIES, { [part]: policy }),
    ApiExtension('x-rate-limit-include-policies', { [part]: policy }),
  );
}

/**
 * A `/v1` route whose `include` parts cost the base policies their units (INCLUDE_UNITS) on
 * top of the request's own: announced in `RateLimit-Policy` and in the OpenAPI document.
 */
export function IncludeCosts(...parts: IncludeUnitPart[]): MethodDecorator {
  const units = Object.fromEntries(parts.map((part) => [part, INCLUDE_UNITS[part]]));
  return applyDecorators(SetMetadata(INCLUDE_COSTS, units), ApiExtension('x-rate-limit-include-units', units));
}

/**
 * A `/v1` route whose request costs the base policies `units` more when it names any of `params`
 * (filters the database judges row by row, within a bound of rows examined): announced in
 * `RateLimit-Policy` and in the OpenAPI document.
 */
export function FilterCosts(units: number, ...params: string[]): MethodDecorator {
  const costs = { units, params };
  return applyDecorators(
    SetMetadata(FILTER_COSTS, costs),
    ApiExtension('x-rate-limit-filter-units', Object.fromEntries(params.map((p) => [p, units]))),
  );
}
