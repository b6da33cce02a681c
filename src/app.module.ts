import { DynamicModule, Module, Provider, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { ScopesGuard } from './auth/scopes.guard';
import { claimedClientId } from './auth/token-request';
import { CompaniesModule } from './companies/companies.module';
import { CursorsModule } from './common/cursors/cursors.module';
import { ContextModule } from './context/context.module';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { RouteTable } from './common/http/route-table';
import { Runtime } from './runtime';
import { RuntimeModule } from './config/runtime.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { RecordingsModule } from './recordings/recordings.module';
import { EmailsModule } from './emails/emails.module';
import { ChatModule } from './chat/chat.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RateLimitPolicyGuard } from './rate-limit/rate-limit-policy.guard';

/** Modules of the HTTP service, in the order a request meets them. */
const domainModules: Type[] = [HealthModule, CompaniesModule, AuthModule, ContextModule, RecordingsModule, EmailsModule, ChatModule];

/**
 * Global guards run in this order, which is the spec's order of checks on `/v1`:
 * (RateLimit-Policy announced) → 401 (token) → 403 API_ACCESS_DISABLED (both in
 * BearerAuthGuard) → 429 (rate limit) → 403 INSUFFICIENT_SCOPE. Query validation (400) and
 * the handler (404) come after.
 */
const globalGuards: Provider[] = [RateLimitPolicyGuard, BearerAuthGuard, RateLimitGuard, ScopesGuard].map((guard) => ({
  provide: APP_GUARD,
  useClass: guard,
}));

@Module({})
export class AppModule {
  /** `extra` lets tests mount probe controllers beside the real ones. */
  static forRoot(runtime: Runtime, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        ClsModule.forRoot({
          global: true,
          middleware: { mount: true, generateId: true, idGenerator: (req) => req.requestId },
        }),
        DatabaseModule.forApi(),
        AuditModule,
        RateLimitModule.forRoot({ tokenClientOf: (req) => claimedClientId(req.body, req.headers.authorization) }),
        CursorsModule,
        ...domainModules,
        ...extra,
      ],
      providers: [RouteTable, EnvelopeInterceptor, ...globalGuards],
    };
  }
}
