import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { UNAUTHENTICATED_POLICY } from '../contract/rate-limit-policies';
import { AppConfig } from '../config/app-config';
import { formatRateLimit, formatRateLimitPolicy, RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from './rate-limit-headers';
import { addressPartition } from './rate-limiter';
import { Demand, RateLimitStore } from './rate-limit-store';

/**
 * Failed authentication per client address (`RATE_LIMIT_UNAUTHENTICATED`, the `unauthenticated`
 * policy): every 401 (a missing or invalid bearer token on `/v1`, `invalid_client` at the token
 * endpoint) counts one against the address it came from (`req.ip`, so TRUST_PROXY decides;
 * IPv6 by its /64). An address at the limit is answered `429 RATE_LIMIT_EXCEEDED` until its window
 * ends, before its token or credentials are looked at: a flood costs one counter read a request.
 * The counters are the rate limiter's (Redis when REDIS_URL is set: every instance counts the same).
 *
 * A refusal is answered after REFUSAL_DELAY_MS, not at once: a flood is a client answering each
 * refusal with its next request on the same connection, as fast as it is answered, so each
 * answer's cost (small, but a whole event loop's worth at 2,000 a second: bench:neighbours, the
 * measured company's p99 six times its quiet one) is paid as often as the service can answer.
 * Held, each of the flood's connections asks once a second; the wait holds no connection to the
 * database and nothing but a timer (a client gone meanwhile is not answered at all).
 */
/** How long a refusal of an address past its failures is held before it is answered. */
export const REFUSAL_DELAY_MS = 1000;

@Injectable()
export class FailedAuthLimit {
  private readonly limit: number;
  private readonly windowMs: number;

  constructor(
    private readonly store: RateLimitStore,
    config: AppConfig,
  ) {
    this.limit = config.unauthenticatedLimit.limit;
    this.windowMs = config.unauthenticatedLimit.windowSeconds * 1000;
  }

  /** Throws 429 when `address` failed authentication `limit` times in the current window. A store failure is 503. */
  async refuseIfExceeded(address: string | undefined): Promise<void> {
    const demand = this.demand(address);
    let hits: number;
    let resetMs: number;
    try {
      [{ hits, resetMs }] = await this.store.peek([demand]);
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', 'A required dependency is unavailable; retry with backoff.');
    }
    if (hits < this.limit) return;
    await new Promise((resolve) => setTimeout(resolve, REFUSAL_DELAY_MS));
    const seconds = Math.max(1, Math.ceil(Math.max(0, resetMs - REFUSAL_DELAY_MS) / 1000));
    throw new ApiError('RATE_LIMIT_EXCEEDED', `Too many failed authentications from this address; retry after ${seconds} seconds.`, {
      [RATE_LIMIT_POLICY_HEADER]: formatRateLimitPolicy([
        { policy: UNAUTHENTICATED_POLICY, limit: this.limit, windowSeconds: Math.ceil(this.windowMs / 1000) },
      ]),
      [RATE_LIMIT_HEADER]: formatRateLimit([{ policy: UNAUTHENTICATED_POLICY, remaining: 0, resetSeconds: seconds }]),
      'Retry-After': String(seconds),
    });
  }

  /** Counts one failed authentication of `address` (best effort: the request fails with its 401 whatever happens here). */
  async failed(address: string | undefined): Promise<void> {
    await this.store.consume([this.demand(address)]).catch(() => undefined);
  }

  private demand(address: string | undefined): Demand {
    return { key: `rl:${UNAUTHENTICATED_POLICY}:address:${addressPartition(address)}`, limit: this.limit, windowMs: this.windowMs };
  }
}
