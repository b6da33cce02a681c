import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
import { CLS_REQ, ClsService } from 'nestjs-cls';
import { ApiError } from '../common/errors/api-error';
import { Principal, principalOf, RequestStore } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { formatRateLimit, formatRateLimitPolicy, PolicyQuota, PolicyState } from './rate-limit-headers';
import { RATE_LIMIT_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { Counter, Demand, RateLimitStore } from './rate-limit-store';

declare module '../common/http/request-context' {
  interface RequestStore {
    /** The rate-limit count of the request, once counted (read by GET /v1/context). */
    rateLimit?: { demands: readonly PolicyDemand[]; counters: Counter[] };
  }
}

/** What rate limiting needs to know of the requests it counts, from the features that read them. */
export interface RateLimitOptions {
  /** The client id a token request names (in its body or its Basic credentials), if any. */
  tokenClientOf(req: Request): string | undefined;
}

export const RATE_LIMIT_OPTIONS = Symbol('RATE_LIMIT_OPTIONS');

/** A counter a policy charges: one per partition of the policy the request falls in. */
export interface PolicyDemand extends Demand {
  policy: RateLimitPolicyName;
}

/** The outcome of counting one request against its route's policies. */
export interface RateLimitVerdict {
  allowed: boolean;
  /** Per policy, in header order. */
  quotas: PolicyQuota[];
  /** Per policy, its tightest partition. */
  states: PolicyState[];
  /** Whole seconds until every violated window has ended (refused requests only). */
  retryAfterSeconds: number;
  /** Header values: `RateLimit-Policy` and `RateLimit`. */
  policyHeader: string;
  stateHeader: string;
}

/** One policy as `GET /v1/context` reports it. */
export interface RateLimitSnapshot {
  policy: RateLimitPolicyName;
  quota: number;
  window: number;
  remaining: number;
  reset: number;
}

const UNAVAILABLE = 'A required dependency is unavailable; retry with backoff.';

/**
 * Rate limiting as the API defines it: which counters (partitions) each policy charges,
 * all-or-nothing counting through the store, and the verdict in the IETF RateLimit header
 * fields. Partitions: `client` and `export` by API client, `company`/`email_content`/`chat_content` by
 * company, `token` by the address and, when the request names a well-formed one, by the client id
 * at that address: never by the client id alone, or anyone naming a victim's id from anywhere
 * could spend the victim's token budget and lock it out of its own tokens.
 */
@Injectable()
export class RateLimiter {
  private readonly quotas: Record<RateLimitPolicyName, PolicyQuota>;

  constructor(
    private readonly store: RateLimitStore,
    private readonly cls: ClsService<RequestStore>,
    config: AppConfig,
    @Inject(RATE_LIMIT_OPTIONS) private readonly options: RateLimitOptions,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.quotas = Object.fromEntries(RATE_LIMIT_POLICIES.map((policy) => [policy, { policy, ...config.rateLimits[policy] }])) as Record<
      RateLimitPolicyName,
      PolicyQuota
    >;
  }

  /** `RateLimit-Policy` for a route's policies, as configured, with what this request costs each. */
  policyHeader(policies: readonly RateLimitPolicyName[], costOf: (policy: RateLimitPolicyName) => number = () => 1): string {
    return formatRateLimitPolicy(inHeaderOrder(policies).map((p) => ({ ...this.quotas[p], cost: costOf(p) })));
  }

  /** The counters `policy` charges for `req`, with the limit and window (ms) the throttler resolved, `cost` units each. */
  demands(policy: RateLimitPolicyName, req: Request, limit: number, windowMs: number, cost = 1): PolicyDemand[] {
    return this.partitions(policy, req).map((partition) => ({ policy, key: counterKey(policy, partition), limit, windowMs, cost }));
  }

  /** Counts the request on every demand, or on none when one is at its limit. A store failure is 503. */
  async consume(demands: readonly PolicyDemand[]): Promise<RateLimitVerdict> {
    const { allowed, counters } = await this.reach(() => this.store.consume(demands));
    const verdict = this.verdict(demands, counters, allowed);
    this.countDecisions(demands, counters, allowed);
    this.cls.set('rateLimit', { demands, counters });
    return verdict;
  }

  /**
   * Gives back what this request spent of `policy`, for a refusal that is not the policy's doing
   * (every export slot busy: the request did no work). Its counters of that policy lose their hit;
   * resolves to the `RateLimit` header value as it stands after, or undefined when the request
   * was not counted under `policy` or the store did not answer (the hit then stays spent: the
   * refusal is the answer either way, not a 503).
   */
  async giveBack(policy: RateLimitPolicyName): Promise<string | undefined> {
    const counted = this.cls.get('rateLimit');
    const given = counted?.demands.filter((d) => d.policy === policy) ?? [];
    if (!counted || !given.length) return undefined;
    let after: Counter[];
    try {
      after = await this.store.refund(given);
    } catch {
      return undefined;
    }
    const counters = counted.counters.map((counter, i) => {
      const at = given.indexOf(counted.demands[i] as PolicyDemand);
      return at === -1 ? counter : after[at];
    });
    this.cls.set('rateLimit', { demands: counted.demands, counters });
    return this.verdict(counted.demands, counters, true).stateHeader;
  }

  /**
   * Every policy that governs the caller's `/v1` requests and token requests, as it stands
   * after this request was counted (counters this request did not touch are read, not hit).
   * The token policy is reported for this client at this request's address.
   */
  async snapshot(): Promise<RateLimitSnapshot[]> {
    const principal = principalOf(this.cls);
    const counted = this.cls.get('rateLimit');
    const known = new Map(counted?.demands.map((d, i) => [d.key, counted.counters[i]]));
    const wanted = RATE_LIMIT_POLICIES.map((policy) => {
      const { limit, windowSeconds } = this.quotas[policy];
      const partition =
        policy === 'token'
          ? tokenClientPartition(principal.clientId, addressPartition(this.cls.get<Request | undefined>(CLS_REQ)?.ip))
          : this.principalPartition(policy, principal);
      return { policy, key: counterKey(policy, partition), limit, windowMs: windowSeconds * 1000 };
    });
    const unknown = wanted.filter((d) => !known.has(d.key));
    const read = unknown.length ? await this.reach(() => this.store.peek(unknown)) : [];
    unknown.forEach((d, i) => known.set(d.key, read[i]));
    return wanted.map((d) => {
      const counter = known.get(d.key)!;
      return {
        policy: d.policy,
        quota: d.limit,
        window: this.quotas[d.policy].windowSeconds,
        remaining: Math.max(0, d.limit - counter.hits),
        reset: Math.ceil(counter.resetMs / 1000),
      };
    });
  }

  /** `rate_limit_decisions_total`: each policy charged, allowed; or each policy at its limit, refused. */
  private countDecisions(demands: readonly PolicyDemand[], counters: Counter[], allowed: boolean): void {
    if (!this.metrics?.enabled) return;
    const policies = new Set(demands.filter((d, i) => allowed || counters[i].hits >= d.limit).map((d) => d.policy));
    for (const policy of policies) this.metrics.rateLimit(policy, allowed);
  }

  private verdict(demands: readonly PolicyDemand[], counters: Counter[], allowed: boolean): RateLimitVerdict {
    const policies = inHeaderOrder(demands.map((d) => d.policy));
    const quotas = policies.map((policy) => {
      const demand = demands.find((d) => d.policy === policy)!;
      return { policy, limit: demand.limit, windowSeconds: Math.ceil(demand.windowMs / 1000), cost: demand.cost ?? 1 };
    });
    const states = policies.map((policy) => {
      const tightest = demands
        .map((d, i) => ({ d, counter: counters[i] }))
        .filter(({ d }) => d.policy === policy)
        .map(({ d, counter }) => ({
          policy,
          remaining: Math.max(0, d.limit - counter.hits),
          resetSeconds: Math.ceil(counter.resetMs / 1000),
        }))
        .sort((a, b) => a.remaining - b.remaining || b.resetSeconds - a.resetSeconds)[0];
      return tightest;
    });
    const violated = allowed ? [] : counters.filter((counter, i) => counter.hits >= demands[i].limit);
    const retryAfterSeconds = violated.length ? Math.max(1, ...violated.map((c) => Math.ceil(c.resetMs / 1000))) : 0;
    return {
      allowed,
      quotas,
      states,
      retryAfterSeconds,
      policyHeader: formatRateLimitPolicy(quotas),
      stateHeader: formatRateLimit(states),
    };
  }

  private partitions(policy: RateLimitPolicyName, req: Request): string[] {
    if (policy !== 'token') return [this.principalPartition(policy, principalOf(this.cls))];
    const clientId = parseId('client', this.options.tokenClientOf(req));
    const address = addressPartition(req.ip);
    return [`address:${address}`, ...(clientId ? [tokenClientPartition(clientId, address)] : [])];
  }

  private principalPartition(policy: Exclude<RateLimitPolicyName, 'token'>, principal: Principal): string {
    return policy === 'client' || policy === 'export' || policy === 'webhook_admin' ? principal.clientId : principal.companyPublicId;
  }

  private async reach<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', UNAVAILABLE);
    }
  }
}

/** A client's token requests from one address (IPv6 by its /64). */
function tokenClientPartition(clientId: string, address: string): string {
  return `client:${clientId}@${address}`;
}

/** The store key of a policy's counter for one partition. */
function counterKey(policy: RateLimitPolicyName, partition: string): string {
  return `rl:${policy}:${partition}`;
}

function inHeaderOrder(policies: readonly RateLimitPolicyName[]): RateLimitPolicyName[] {
  return RATE_LIMIT_POLICIES.filter((p) => policies.includes(p));
}

/**
 * The address a token request is counted under: IPv4 as is (an IPv4-mapped IPv6 address as
 * the IPv4 it carries), IPv6 by its /64, the block one host or site usually holds, so that
 * walking through a block's addresses does not multiply the quota.
 */
export function addressPartition(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/64`).toRFC5952String()}/64`;
}
