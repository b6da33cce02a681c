import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/** The named rate-limit policies (API decisions, "Rate limits"), in the order headers list them. */
export const RATE_LIMIT_POLICIES = ['client', 'company', 'email_content', 'chat_content', 'token'] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICIES)[number];

/** Policies every `/v1` route is governed by. */
export const BASE_POLICIES: readonly RateLimitPolicyName[] = ['client', 'company'];

/** Metadata key of a route's declared policy set (read by the rate-limit guards). */
export const ROUTE_POLICIES = 'rate-limit:route-policies';

/** OpenAPI operation extension listing the policies of a route. */
export const POLICIES_EXTENSION = 'x-rate-limit-policies';

/** A route governed by exactly these policies (declared on the token endpoint and the content routes). */
export function RateLimitPolicies(...policies: RateLimitPolicyName[]): MethodDecorator {
  return applyDecorators(SetMetadata(ROUTE_POLICIES, policies), ApiExtension(POLICIES_EXTENSION, policies));
}

/** A `/v1` route governed by a content policy in addition to the client and company policies. */
export function ContentPolicy(name: 'email_content' | 'chat_content'): MethodDecorator {
  return RateLimitPolicies(...BASE_POLICIES, name);
}
