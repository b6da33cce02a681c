/*
 * Keys of what a route declares about itself: written by the decorators of the feature that
 * owns the declaration (auth, rate limiting), read by the guards and the OpenAPI assembly.
 */

/** A route without a bearer token (probes, the token endpoint): `@Public()`. */
export const IS_PUBLIC = 'auth:public';

/** The scopes a route requires, every one: `@Authenticated(...scopes)`. */
export const REQUIRED_SCOPES = 'auth:scopes';

/** Scopes of which a route requires at least one: `@AuthenticatedByAnyOf(...scopes)`. */
export const ANY_OF_SCOPES = 'auth:any-of-scopes';

/** A route's declared rate-limit policy set: `@RateLimitPolicies(...)`, `@ContentPolicy(...)`. */
export const ROUTE_POLICIES = 'rate-limit:route-policies';

/** OpenAPI operation extension listing the rate-limit policies of a route. */
export const POLICIES_EXTENSION = 'x-rate-limit-policies';

/** Policies a route adds when its `include` names a part: `@IncludePolicy(part, policy)` (`include=messages` counts the content policy). */
export const INCLUDE_POLICIES = 'rate-limit:include-policies';

/** The `include` parts a route counts in units (INCLUDE_UNITS): `@IncludeCosts(...parts)`. */
export const INCLUDE_COSTS = 'rate-limit:include-costs';

/** Query parameters that make a request cost units more (`@FilterCosts(units, ...params)`): a filter judged row by row. */
export const FILTER_COSTS = 'rate-limit:filter-costs';
