import { Controller } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { caught, httpContext } from '../../test/support/execution-context';
import { Authenticated, Public } from '../auth/auth.decorators';
import { ApiError } from '../common/errors/api-error';
import { Principal } from '../common/http/request-context';
import { loadConfig } from '../config/app-config';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { RATE_LIMIT_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { ContentPolicy, RateLimitPolicies } from './rate-limit.decorators';
import { RateLimitGuard } from './rate-limit.guard';
import { PolicyDemand, RateLimiter, RateLimitVerdict } from './rate-limiter';
import { routePolicies } from './route-policies';

@Controller()
class Routes {
  @Authenticated('meetings.read')
  meetings(): void {}

  @Authenticated('chat.read', 'chat.content.read')
  @ContentPolicy('chat_content')
  chatMessages(): void {}

  @Public()
  @RateLimitPolicies('token')
  token(): void {}

  @Public()
  health(): void {}
}

/** Each policy a throttler, as RateLimitModule configures them: its own quota, applied only where the route names it. */
const QUOTAS: Record<RateLimitPolicyName, { limit: number; ttl: number }> = {
  client: { limit: 2, ttl: 60_000 },
  company: { limit: 5, ttl: 60_000 },
  email_content: { limit: 7, ttl: 120_000 },
  chat_content: { limit: 9, ttl: 30_000 },
  export: { limit: 3, ttl: 3_600_000 },
  webhook_admin: { limit: 6, ttl: 60_000 },
  token: { limit: 4, ttl: 300_000 },
};
const throttlerOptions = (reflector: Reflector): ThrottlerModuleOptions => ({
  throttlers: RATE_LIMIT_POLICIES.map((name) => ({ name, ...QUOTAS[name], skipIf: (c) => !routePolicies(reflector, c).includes(name) })),
  setHeaders: false,
});

/** The throttler's own storage is never used: the guard counts every policy at once through the limiter. */
const untouchedStorage = {
  increment: () => {
    throw new Error('the throttler storage must not count');
  },
} as unknown as ThrottlerStorage;

const verdict = (overrides: Partial<RateLimitVerdict>): RateLimitVerdict => ({
  allowed: true,
  quotas: [],
  states: [],
  retryAfterSeconds: 0,
  policyHeader: '"client";q=2;w=60',
  stateHeader: '"client";r=1;t=60',
  ...overrides,
});

const inHeaderOrder = (demands: PolicyDemand[]) =>
  [...demands].sort((a, b) => RATE_LIMIT_POLICIES.indexOf(a.policy) - RATE_LIMIT_POLICIES.indexOf(b.policy));

async function guardWith(limiter: RateLimiter): Promise<RateLimitGuard> {
  const reflector = new Reflector();
  const guard = new RateLimitGuard(throttlerOptions(reflector), untouchedStorage, reflector, limiter);
  await guard.onModuleInit(); // as Nest does: the throttler reads its named throttlers
  return guard;
}

describe('RateLimitGuard', () => {
  /** A limiter that records what it is asked and answers `answer`. */
  const fakeLimiter = (answer: () => Promise<RateLimitVerdict>) => {
    const consumed: PolicyDemand[][] = [];
    const limiter = {
      demands: (policy: RateLimitPolicyName, req: Request, limit: number, windowMs: number): PolicyDemand[] => [
        { policy, key: `${policy}@${req.ip}`, limit, windowMs },
      ],
      consume: (demands: PolicyDemand[]) => {
        consumed.push([...demands]);
        return answer();
      },
    } as unknown as RateLimiter;
    return { limiter, consumed };
  };

  describe('allows', () => {
    it('a request within its quotas: every policy of the route counted in one step, with its configured quota, and both headers set', async () => {
      const { limiter, consumed } = fakeLimiter(async () => verdict({ policyHeader: 'the policies', stateHeader: 'what remains' }));
      const { context, res } = httpContext(Routes, 'chatMessages', { ip: '203.0.113.5' });
      await expect((await guardWith(limiter)).canActivate(context)).resolves.toBe(true);
      // One step for all of them (in whatever order the throttler visits its throttlers).
      expect(consumed).toHaveLength(1);
      expect(inHeaderOrder(consumed[0])).toEqual([
        { policy: 'client', key: 'client@203.0.113.5', limit: 2, windowMs: 60_000 },
        { policy: 'company', key: 'company@203.0.113.5', limit: 5, windowMs: 60_000 },
        { policy: 'chat_content', key: 'chat_content@203.0.113.5', limit: 9, windowMs: 30_000 },
      ]);
      expect(Object.fromEntries(res.headers)).toEqual({ 'ratelimit-policy': 'the policies', ratelimit: 'what remains' });
    });

    it('a /v1 route by the base policies, and the token endpoint by the token policy alone', async () => {
      const { limiter, consumed } = fakeLimiter(async () => verdict({}));
      const guard = await guardWith(limiter);
      await guard.canActivate(httpContext(Routes, 'meetings', { ip: '198.51.100.1' }).context);
      await guard.canActivate(httpContext(Routes, 'token', { ip: '198.51.100.1' }).context);
      expect(consumed.map((demands) => inHeaderOrder(demands).map((d) => d.policy))).toEqual([['client', 'company'], ['token']]);
      expect(consumed[1][0]).toMatchObject({ limit: 4, windowMs: 300_000 });
    });

    it('a route without a policy (a probe), uncounted and without a header', async () => {
      const { limiter, consumed } = fakeLimiter(async () => verdict({}));
      const { context, res } = httpContext(Routes, 'health');
      await expect((await guardWith(limiter)).canActivate(context)).resolves.toBe(true);
      expect(consumed).toEqual([]);
      expect(res.headers.size).toBe(0);
    });
  });

  describe('refuses', () => {
    it('a request over a quota: 429 RATE_LIMIT_EXCEEDED with Retry-After, and the RateLimit headers set all the same', async () => {
      const { limiter, consumed } = fakeLimiter(async () =>
        verdict({ allowed: false, retryAfterSeconds: 17, policyHeader: 'the policies', stateHeader: 'none left' }),
      );
      const { context, res } = httpContext(Routes, 'meetings', { ip: '203.0.113.5' });
      const error = await caught(() => guardWith(limiter).then((guard) => guard.canActivate(context)));
      expect(error).toBeInstanceOf(ApiError);
      const e = error as ApiError;
      expect({ status: e.status, code: e.code, headers: e.headers }).toEqual({
        status: 429,
        code: 'RATE_LIMIT_EXCEEDED',
        headers: { 'Retry-After': '17' },
      });
      expect(e.detail).toContain('retry after 17 seconds');
      expect(consumed).toHaveLength(1);
      expect(Object.fromEntries(res.headers)).toEqual({ 'ratelimit-policy': 'the policies', ratelimit: 'none left' });
    });

    it('a request the limiter cannot count: its 503 SERVICE_UNAVAILABLE, no header set', async () => {
      const { limiter } = fakeLimiter(() => Promise.reject(new ApiError('SERVICE_UNAVAILABLE', 'A required dependency is unavailable.')));
      const { context, res } = httpContext(Routes, 'meetings', { ip: '203.0.113.5' });
      const error = await caught(() => guardWith(limiter).then((guard) => guard.canActivate(context)));
      expect(error).toBeInstanceOf(ApiError);
      expect({ status: (error as ApiError).status, code: (error as ApiError).code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers.size).toBe(0);
    });
  });

  describe('with the real limiter and in-process counters (clock stopped)', () => {
    const principal: Partial<Principal> = { clientId: 'cli_0123456789abcdefghijkl', companyPublicId: 'cmp_0123456789abcdefghijkl' };
    let store: MemoryRateLimitStore;
    let guard: RateLimitGuard;

    beforeEach(async () => {
      store = new MemoryRateLimitStore(() => 0);
      const values = new Map<string, unknown>([['principal', principal]]);
      const cls = { get: (k: string) => values.get(k), set: (k: string, v: unknown) => values.set(k, v) } as unknown as ClsService;
      guard = await guardWith(new RateLimiter(store, cls, loadConfig({ NODE_ENV: 'test' }), { tokenClientOf: () => undefined }));
    });
    afterEach(() => store.onModuleDestroy());

    it('allows the client quota, then refuses the next request with 429 without spending the company budget', async () => {
      const request = () => httpContext(Routes, 'meetings', { ip: '203.0.113.5' });
      for (const remaining of [1, 0]) {
        const { context, res } = request();
        await expect(guard.canActivate(context)).resolves.toBe(true);
        expect(res.getHeader('RateLimit-Policy')).toBe('"client";q=2;w=60, "company";q=5;w=60');
        expect(res.getHeader('RateLimit')).toBe(`"client";r=${remaining};t=60, "company";r=${3 + remaining};t=60`);
      }
      for (let retry = 0; retry < 2; retry++) {
        const { context, res } = request();
        const error = await caught(() => guard.canActivate(context));
        expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', headers: { 'Retry-After': '60' } });
        expect(res.getHeader('RateLimit')).toBe('"client";r=0;t=60, "company";r=3;t=60'); // refusals spent nothing
      }
    });
  });
});
