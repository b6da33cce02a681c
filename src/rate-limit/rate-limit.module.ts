import { DynamicModule, Global, Module } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerModule, ThrottlerModuleOptions } from '@nestjs/throttler';
import { RATE_LIMIT_POLICIES } from '../contract/rate-limit-policies';
import { AppConfig } from '../config/app-config';
import { FailedAuthLimit } from './failed-auth-limit';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { RATE_LIMIT_OPTIONS, RateLimitOptions, RateLimiter } from './rate-limiter';
import { RateLimitStore } from './rate-limit-store';
import { RedisRateLimitStore } from './redis-rate-limit-store';
import { routePolicies } from './route-policies';

/**
 * One named throttler per policy, its quota and window from configuration. A throttler
 * applies to a route only when the route's policy set names it (a bare `@SkipThrottle()`
 * would skip none of them: named throttlers are skipped by name). The throttler resolves
 * which policies govern a request; RateLimitGuard counts them in our store, so the
 * throttler's own storage is never called.
 */
function throttlerOptions(config: AppConfig, reflector: Reflector): ThrottlerModuleOptions {
  return {
    throttlers: RATE_LIMIT_POLICIES.map((name) => ({
      name,
      limit: config.rateLimits[name].limit,
      ttl: config.rateLimits[name].windowSeconds * 1000,
      skipIf: (context) => !routePolicies(reflector, context).includes(name),
    })),
    setHeaders: false,
  };
}

/**
 * Rate limiting: the throttler's named policies, the counters (Redis when REDIS_URL is set, one
 * budget for every instance; else in this process), and the limiter the guards and
 * `/v1/context` use.
 */
@Global()
@Module({})
export class RateLimitModule {
  static forRoot(options: RateLimitOptions): DynamicModule {
    return {
      module: RateLimitModule,
      imports: [ThrottlerModule.forRootAsync({ inject: [AppConfig, Reflector], useFactory: throttlerOptions })],
      providers: [
        { provide: RATE_LIMIT_OPTIONS, useValue: options },
        {
          provide: RateLimitStore,
          inject: [AppConfig],
          useFactory: (config: AppConfig): RateLimitStore =>
            config.redisUrl ? new RedisRateLimitStore(config.redisUrl, config.redisTimeoutMs) : new MemoryRateLimitStore(),
        },
        RateLimiter,
        FailedAuthLimit,
      ],
      exports: [RateLimiter, RateLimitStore, FailedAuthLimit],
    };
  }
}
