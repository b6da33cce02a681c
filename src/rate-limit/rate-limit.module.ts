import { Global, Module } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerModule, ThrottlerModuleOptions } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { RATE_LIMIT_POLICIES } from './rate-limit-policies';
import { routePolicies } from './route-policies';
import { RateLimitStore } from './rate-limit-store';
import { RateLimiter } from './rate-limiter';
import { RedisRateLimitStore } from './redis-rate-limit-store';

/** Redis when REDIS_URL is set (one budget for every instance), else counters in this process. */
@Module({
  providers: [
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig): RateLimitStore =>
        config.redisUrl ? new RedisRateLimitStore(config.redisUrl, config.redisTimeoutMs) : new MemoryRateLimitStore(),
    },
  ],
  exports: [RateLimitStore],
})
class RateLimitStoreModule {}

/**
 * One named throttler per policy, its quota and window from configuration. A throttler
 * applies to a route only when the route's policy set names it (a bare `@SkipThrottle()`
 * would skip none of them: named throttlers are skipped by name).
 */
function throttlerOptions(config: AppConfig, reflector: Reflector, store: RateLimitStore): ThrottlerModuleOptions {
  return {
    throttlers: RATE_LIMIT_POLICIES.map((name) => ({
      name,
      limit: config.rateLimits[name].limit,
      ttl: config.rateLimits[name].windowSeconds * 1000,
      skipIf: (context) => !routePolicies(reflector, context).includes(name),
    })),
    storage: store,
    setHeaders: false,
  };
}

/** Rate limiting: the throttler's named policies, the store, and the limiter the guards and /v1/context use. */
@Global()
@Module({
  imports: [
    RateLimitStoreModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [AppConfig, Reflector, RateLimitStore],
      useFactory: throttlerOptions,
    }),
  ],
  providers: [RateLimiter],
  exports: [RateLimiter, RateLimitStoreModule],
})
export class RateLimitModule {}
