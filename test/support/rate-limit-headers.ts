import { parseItem, parseList } from 'structured-headers';
import request from 'supertest';

/** One member of a RateLimit-Policy or RateLimit field: the policy name and its integer parameters. */
export type PolicyParams = Record<string, number>;

/**
 * Parses a RateLimit-Policy or RateLimit field with a structured-field parser (RFC 9651) and
 * checks the draft's shape: a list of sf-string policy names, each with integer parameters.
 * Keyed by policy name, in the field's order.
 */
export function parseRateLimitField(value: string | undefined): Map<string, PolicyParams> {
  if (value === undefined) throw new Error('header missing');
  const policies = new Map<string, PolicyParams>();
  for (const [name, params] of parseList(value)) {
    if (typeof name !== 'string') throw new Error(`policy name is not an sf-string: ${String(name)}`);
    const values: PolicyParams = {};
    for (const [key, v] of params) {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`parameter ${key} of ${name} is not an integer`);
      values[key] = v;
    }
    policies.set(name, values);
  }
  return policies;
}

/** The policies of a response's RateLimit-Policy and RateLimit, parsed. */
export function rateLimitOf(res: request.Response): { policy: Map<string, PolicyParams>; state: Map<string, PolicyParams> } {
  return { policy: parseRateLimitField(res.headers['ratelimit-policy']), state: parseRateLimitField(res.headers['ratelimit']) };
}

/** Retry-After as delay-seconds (RFC 9110): a non-negative integer. */
export function retryAfterOf(res: request.Response): number {
  const value = res.headers['retry-after'];
  if (!/^\d+$/.test(value ?? '')) throw new Error(`Retry-After is not delay-seconds: ${value}`);
  return Number(parseItem(value)[0]);
}
