/** The named rate-limit policies (API decisions, "Rate limits"), in the order headers list them. */
export const RATE_LIMIT_POLICIES = ['client', 'company', 'email_content', 'chat_content', 'export', 'token'] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICIES)[number];

/**
 * Failed authentication per client address (RATE_LIMIT_UNAUTHENTICATED): not a route's policy (a
 * request that authenticates never spends it), so not among RATE_LIMIT_POLICIES; an address past
 * it is refused before its token is looked at.
 */
export const UNAUTHENTICATED_POLICY = 'unauthenticated';

/** Policies every `/v1` route is governed by. */
export const BASE_POLICIES: readonly RateLimitPolicyName[] = ['client', 'company'];

/** Policies that govern a content route in addition to the base policies. */
export type ContentPolicyName = 'email_content' | 'chat_content';
