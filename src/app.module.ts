import { DynamicModule, INestApplicationContext, Module, Provider, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { RequestHandler } from 'express';
import { ClsModule } from 'nestjs-cls';
import { AuditInterceptor } from './audit/audit.interceptor';
import { AuditModule } from './audit/audit.module';
import { AuditEventsModule } from './audit-events/audit-events.module';
import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { ScopesGuard } from './auth/scopes.guard';
import { claimedClientId } from './auth/token-request';
import { ChangesModule } from './changes/changes.module';
import { ChatModule } from './chat/chat.module';
import { CursorsModule } from './common/cursors/cursors.module';
import { ApiExceptionFilter } from './common/errors/api-exception.filter';
import { compressionMiddleware } from './common/http/compression.middleware';
import { drainingMiddleware } from './common/http/draining.middleware';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { literalMalformedEscapes } from './common/http/path-escapes.middleware';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { requestSurfaceMiddleware } from './common/http/request-surface.middleware';
import { RouteTable } from './common/http/route-table';
import { ShutdownState } from './common/http/shutdown-state';
import { surfaceHeaderMiddleware } from './common/http/surface-header.middleware';
import { QueryValidationPipe } from './common/validation/query-validation.pipe';
import { CompaniesModule } from './companies/companies.module';
import { RuntimeModule } from './config/runtime.module';
import { ContextModule } from './context/context.module';
import { DatabaseModule } from './database/database.module';
import { TenantTransactionInterceptor } from './database/tenant-transaction.interceptor';
import { EmailsModule } from './emails/emails.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { Metrics } from './metrics/metrics';
import { MetricsModule } from './metrics/metrics.module';
import { RATE_LIMIT_POLICY_HEADER } from './rate-limit/rate-limit-headers';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RateLimitPolicyGuard } from './rate-limit/rate-limit-policy.guard';
import { RateLimiter } from './rate-limit/rate-limiter';
import { RecordingsModule } from './recordings/recordings.module';
import { Runtime } from './runtime';
import { inProcessWorker } from './worker/worker.module';
import { ExportModule } from './export/export.module';
import { WebhookEndpointsModule } from './webhook-endpoints/webhook-endpoints.module';

/*
 * The request pipeline, in the order a request meets it:
 *
 * 1. Express middleware, before routing (createApp mounts requestMiddleware in this order):
 *    request metrics (unless METRICS_PORT=off) → compression (by Accept-Encoding) → draining → request id → malformed path escapes made literal → surface and no-store →
 *    the token endpoint's RateLimit-Policy; then nestjs-cls opens the request context and
 *    the token endpoint's body parser runs (AuthModule).
 * 2. requestPipeline below, Nest's enhancers in their order: the guards, which are the
 *    spec's order of checks on `/v1` (RateLimit-Policy announced → 401 token → 403
 *    API_ACCESS_DISABLED, both in BearerAuthGuard → 429 rate limit → 403 INSUFFICIENT_SCOPE);
 *    query validation (400); the interceptors, outermost first (the audit write waits for the
 *    envelope and for the tenant transaction to end); then controller → service → repository
 *    (404 and the data). Every error, wherever thrown, ends in ApiExceptionFilter, which
 *    answers it in the route's error shape and tells the audit trail.
 */

/** Express middleware of every request, in order (see above). */
export function requestMiddleware(app: INestApplicationContext): RequestHandler[] {
  const metrics = app.get(Metrics);
  return [
    ...(metrics.enabled ? [httpMetricsMiddleware(metrics)] : []),
    compressionMiddleware,
    drainingMiddleware(app.get(ShutdownState)),
    requestIdMiddleware,
    literalMalformedEscapes,
    requestSurfaceMiddleware,
    surfaceHeaderMiddleware('token', RATE_LIMIT_POLICY_HEADER, app.get(RateLimiter).policyHeader(['token'])),
  ];
}

/** Nest's global enhancers, each kind in the order it runs. */
const requestPipeline: Provider[] = [
  { provide: APP_GUARD, useClass: RateLimitPolicyGuard },
  { provide: APP_GUARD, useClass: BearerAuthGuard },
  { provide: APP_GUARD, useClass: RateLimitGuard },
  { provide: APP_GUARD, useClass: ScopesGuard },
  { provide: APP_PIPE, useClass: QueryValidationPipe },
  { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
  { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
  { provide: APP_INTERCEPTOR, useClass: TenantTransactionInterceptor },
  { provide: APP_FILTER, useClass: ApiExceptionFilter },
];

/** Modules of the HTTP service's routes, in the order a reader meets them. */
const routeModules: Type[] = [
  HealthModule,
  CompaniesModule,
  AuthModule,
  ContextModule,
  RecordingsModule,
  EmailsModule,
  ChatModule,
  ChangesModule,
  ExportModule,
  AuditEventsModule,
  WebhookEndpointsModule,
];

@Module({})
export class AppModule {
  /** `extra` lets tests mount probe controllers beside the real ones. */
  static forRoot(runtime: Runtime, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        MetricsModule.forRoot(),
        ClsModule.forRoot({
          global: true,
          middleware: { mount: true, generateId: true, idGenerator: (req) => req.requestId },
        }),
        DatabaseModule.forApi(),
        AuditModule,
        RateLimitModule.forRoot({ tokenClientOf: (req) => claimedClientId(req.body, req.headers.authorization) }),
        CursorsModule,
        ...routeModules,
        // The worker's loops in this process (WORKER=1), unless it runs on its own (`npm run worker`).
        ...inProcessWorker(runtime),
        ...extra,
      ],
      providers: [RouteTable, ...requestPipeline],
    };
  }
}
