import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/** The named rate-limit policies (API decisions, "Rate limits"). */
export const RATE_LIMIT_POLICIES = ['client', 'company', 'email_content', 'chat_content', 'token'] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICIES)[number];

/** Policies every `/v1` route is governed by. */
export const BASE_POLICIES: readonly RateLimitPolicyName[] = ['client', 'company'];

/** Metadata key of the extra policies of a route (read by the rate-limit guard). */
export const ROUTE_POLICIES = 'rate-limit:route-policies';

/**
 * A route governed by a content policy in addition to the client and company policies.
 * Documented in the operation's `x-rate-limit-policies` extension too.
 */
export function ContentPolicy(name: 'email_content' | 'chat_content'): MethodDecorator {
  return applyDecorators(SetMetadata(ROUTE_POLICIES, [name]), ApiExtension('x-rate-limit-policies', [...BASE_POLICIES, name]));
}
