import { Controller } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { httpContext } from '../../test/support/execution-context';
import { Authenticated, Public } from '../auth/auth.decorators';
import { loadConfig } from '../config/app-config';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { RateLimitPolicyName } from '../contract/rate-limit-policies';
import { ContentPolicy, RateLimitPolicies } from './rate-limit.decorators';
import { RateLimitPolicyGuard } from './rate-limit-policy.guard';
import { RateLimiter } from './rate-limiter';

@Controller()
class Routes {
  @Authenticated('meetings.read')
  meetings(): void {}

  undeclared(): void {}

  @Authenticated('emails.read', 'emails.content.read')
  @ContentPolicy('email_content')
  emailMessages(): void {}

  @Public()
  @RateLimitPolicies('token')
  token(): void {}

  @Public()
  health(): void {}
}

/**
 * The guard that announces a route's policies before anything can refuse the request. It never
 * refuses one itself: its "refuse path" is the request a later guard refuses, which must carry
 * the header all the same (nothing here needs a caller).
 */
describe('RateLimitPolicyGuard', () => {
  const fakeLimiter = () => {
    const asked: Array<readonly RateLimitPolicyName[]> = [];
    const limiter = {
      policyHeader: (policies: readonly RateLimitPolicyName[]) => {
        asked.push([...policies]);
        return `policies of ${policies.join('+')}`;
      },
    } as unknown as RateLimiter;
    return { limiter, asked };
  };

  it.each([
    ['a /v1 route (the base policies)', 'meetings', ['client', 'company']],
    ['a route that declares nothing (the base policies: it fails closed)', 'undeclared', ['client', 'company']],
    ['a content route (its declared set)', 'emailMessages', ['client', 'company', 'email_content']],
    ['the public token endpoint (its declared policy)', 'token', ['token']],
  ] as const)('%s: lets it through and announces its policies in RateLimit-Policy, not RateLimit', (_name, handler, policies) => {
    const { limiter, asked } = fakeLimiter();
    const { context, res } = httpContext(Routes, handler, {});
    expect(new RateLimitPolicyGuard(new Reflector(), limiter).canActivate(context)).toBe(true);
    expect(asked).toEqual([policies]);
    expect(Object.fromEntries(res.headers)).toEqual({ 'ratelimit-policy': `policies of ${policies.join('+')}` });
  });

  it('lets a route without a policy (a probe) through with no header, and asks the limiter nothing', () => {
    const { limiter, asked } = fakeLimiter();
    const { context, res } = httpContext(Routes, 'health');
    expect(new RateLimitPolicyGuard(new Reflector(), limiter).canActivate(context)).toBe(true);
    expect(asked).toEqual([]);
    expect(res.headers.size).toBe(0);
  });

  it('announces the configured quotas, in header order, with the real limiter and no caller at all', () => {
    const emptyCls = { get: () => undefined, set: () => undefined } as unknown as ClsService;
    const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_CLIENT: '3/30', RATE_LIMIT_EMAIL_CONTENT: '7/120' });
    const guard = new RateLimitPolicyGuard(
      new Reflector(),
      new RateLimiter(new MemoryRateLimitStore(), emptyCls, config, { tokenClientOf: () => undefined }),
    );
    const { context, res } = httpContext(Routes, 'emailMessages', { headers: {} });
    expect(guard.canActivate(context)).toBe(true);
    expect(res.getHeader('RateLimit-Policy')).toBe('"client";q=3;w=30, "company";q=1800;w=60, "email_content";q=7;w=120');
    expect(res.getHeader('RateLimit')).toBeUndefined();
  });
});
