import { RateLimitPolicyName, UNAUTHENTICATED_POLICY } from '../contract/rate-limit-policies';

/** A name a header may carry: a route's policy, or the failed-authentication one. */
type HeaderPolicyName = RateLimitPolicyName | typeof UNAUTHENTICATED_POLICY;

export const RATE_LIMIT_POLICY_HEADER = 'RateLimit-Policy';
export const RATE_LIMIT_HEADER = 'RateLimit';

/** A policy's quota: `limit` units per window of `windowSeconds`; `cost`: the units this request counts (1 unless said). */
export interface PolicyQuota {
  policy: HeaderPolicyName;
  limit: number;
  windowSeconds: number;
  cost?: number;
}

/** Where a policy's partition stands: requests left in the window and whole seconds until it resets. */
export interface PolicyState {
  policy: HeaderPolicyName;
  remaining: number;
  resetSeconds: number;
}

/*
 * Structured-field lists (RFC 9651) as draft-ietf-httpapi-ratelimit-headers-11 defines them:
 * each member is the policy name as an sf-string with integer parameters. Names are fixed
 * tokens and the numbers non-negative integers, so nothing needs escaping. A request that counts
 * more than one unit (an `include` part's units) says so in a parameter of our own, `cost`,
 * which the draft allows beside its own (a recipient ignores parameters it does not know); a
 * request of one unit carries exactly the draft's parameters.
 */

/** `RateLimit-Policy: "client";q=600;w=60, "company";q=1800;w=60` (`;cost=15` after a policy this request counts 15 units of) */
export function formatRateLimitPolicy(quotas: readonly PolicyQuota[]): string {
  return quotas.map((q) => `"${q.policy}";q=${q.limit};w=${q.windowSeconds}${(q.cost ?? 1) > 1 ? `;cost=${q.cost}` : ''}`).join(', ');
}

/** `RateLimit: "client";r=599;t=60, "company";r=1790;t=42` */
export function formatRateLimit(states: readonly PolicyState[]): string {
  return states.map((s) => `"${s.policy}";r=${s.remaining};t=${s.resetSeconds}`).join(', ');
}
