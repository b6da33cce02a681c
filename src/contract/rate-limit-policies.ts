/** The named rate-limit policies (API decisions, "Rate limits"), in the order headers list them. */
export const RATE_LIMIT_POLICIES = ['client', 'company', 'email_content', 'chat_content', 'export', 'webhook_admin', 'token'] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICIES)[number];

/**
 * Failed authentication per client address (RATE_LIMIT_UNAUTHENTICATED): not a route's policy (a
 * request that authenticates never spends it), so not among RATE_LIMIT_POLICIES; an address past
 * it is refused before its token is looked at.
 */
export const UNAUTHENTICATED_POLICY = 'unauthenticated';

/** Policies every `/v1` route is governed by. */
export const BASE_POLICIES: readonly RateLimitPolicyName[] = ['client', 'company'];

/**
 * What an `include` part costs the base policies (`client`, `company`) per page or record read
 * with it, in units, beyond the request's own unit: about how much heavier it makes an answer
 * (a transcript of 1,000 utterances is some 40 KB per record, an evaluation or the answers a
 * few KB). A page of meetings with every part counts 1 + 10 + 2 + 2 = 15 units, so a company
 * spending heavy pages reaches its quota 15 times sooner than one reading plain pages.
 */
export const INCLUDE_UNITS = { transcript: 10, evaluation: 2, answers: 2, messages: 10 } as const;
export type IncludeUnitPart = keyof typeof INCLUDE_UNITS;

/**
 * A request that costs this many units or more (its own unit and an `include` part of 10: a
 * transcript, messages) is heavy: it runs one at a time per company (PoolGate.heavy).
 */
export const HEAVY_UNITS = 11;

/**
 * What a filtered read of the audit trail costs the base policies beyond its own unit: it may
 * examine up to AUDIT_SCAN_ROWS events (10,000). Measured beside a page of 100 meetings with
 * every part (14 units of parts) in bench:neighbours: 217 ms at p50 against 139 ms, so about
 * 1.5 times its units; and heavy work (HEAVY_UNITS). At 10 units, reads within a company's quota
 * (2.7 a second) kept two thirds of a core of PostgreSQL busy on the bench's two.
 */
export const FILTERED_AUDIT_READ_UNITS = 20;

/** Policies that govern a content route in addition to the base policies. */
export type ContentPolicyName = 'email_content' | 'chat_content';
