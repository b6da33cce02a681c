import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { BASE_POLICIES, ContentPolicyName, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { POLICIES_EXTENSION, ROUTE_POLICIES } from '../contract/route-metadata';

/** A route governed by exactly these policies (declared on the token endpoint and the content routes). */
export function RateLimitPolicies(...policies: RateLimitPolicyName[]): MethodDecorator {
  return applyDecorators(SetMetadata(ROUTE_POLICIES, policies), ApiExtension(POLICIES_EXTENSION, policies));
}

/** A `/v1` route governed by a content policy in addition to the client and company policies. */
export function ContentPolicy(name: ContentPolicyName): MethodDecorator {
  return RateLimitPolicies(...BASE_POLICIES, name);
}
