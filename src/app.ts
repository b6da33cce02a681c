import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { AuditFailures } from './audit/audit-failures';
import { AuditInterceptor } from './audit/audit.interceptor';
import { ApiExceptionFilter } from './common/errors/api-exception.filter';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { requestIdMiddleware } from './common/http/request-id';
import { requestSurfaceMiddleware } from './common/http/request-surface';
import { HardenedExpressAdapter } from './common/http/http-server';
import { literalMalformedEscapes } from './common/http/path-escapes';
import { RouteTable } from './common/http/route-table';
import { docsSecurityMiddleware } from './common/http/docs-security.middleware';
import { setupOpenApi } from './openapi';
import { QueryValidationPipe } from './common/validation/query-validation.pipe';
import { Runtime } from './runtime';
import { TenantTransactionInterceptor } from './database/tenant-transaction.interceptor';
import { ShutdownState } from './health/shutdown-state';
import { RATE_LIMIT_POLICY_HEADER } from './rate-limit/rate-limit-headers';
import { RateLimiter } from './rate-limit/rate-limiter';

/**
 * Builds the HTTP application: the same pipeline for `main.ts` and the e2e tests.
 *
 * Request pipeline: request id → malformed path escapes made literal → no-store headers →
 * CLS context → (token body parser) → guards (RateLimit-Policy → bearer → API access → rate
 * limit → scopes) → query validation → audit interceptor → envelope interceptor → tenant
 * transaction → controller → service → repository; every error ends in ApiExceptionFilter (which records it in the audit trail).
 */
export async function createApp(runtime: Runtime, extra: Array<Type | DynamicModule> = []): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(runtime, extra),
    new HardenedExpressAdapter(runtime.config.http),
    {
      bodyParser: false,
      bufferLogs: true,
    },
  );
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('etag', false);
  // No answer carries a validator (ETag, Last-Modified), so no request is ever "fresh": without
  // this, Express answers `If-None-Match: *` with an empty 304 instead of the data.
  Object.defineProperty((app.getHttpAdapter().getInstance() as { request: Request }).request, 'fresh', {
    configurable: true,
    get: () => false,
  });
  app.set('trust proxy', runtime.config.trustProxy ? runtime.config.trustProxy.split(',').map((s) => s.trim()) : false);
  // Once shutdown begins, every answer closes its connection, so keep-alive clients move on
  // to another instance and the server can drain (see main.ts).
  const shutdown = app.get(ShutdownState);
  app.use((_req: Request, res: Response, next: NextFunction) => {
    if (shutdown.isShuttingDown) res.setHeader('Connection', 'close');
    next();
  });
  app.use(requestIdMiddleware);
  app.use(literalMalformedEscapes);
  app.use(requestSurfaceMiddleware);
  // The token body is parsed before the guards run; its 400/413/415 still name the policy.
  const tokenPolicy = app.get(RateLimiter).policyHeader(['token']);
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.surface === 'token') res.setHeader(RATE_LIMIT_POLICY_HEADER, tokenPolicy);
    next();
  });

  const routes = app.get(RouteTable);
  const failures = app.get(AuditFailures);
  app.useGlobalFilters(new ApiExceptionFilter(routes, (req, status) => failures.failed(req, status)));
  app.useGlobalPipes(new QueryValidationPipe());
  // Outermost first: the audit write waits for the envelope and for the tenant transaction to end.
  app.useGlobalInterceptors(app.get(AuditInterceptor), app.get(EnvelopeInterceptor), app.get(TenantTransactionInterceptor));
  // The human docs run Swagger UI: its scripts and styles from here, its requests to the API only.
  app.use('/docs', docsSecurityMiddleware(runtime.config.publicBaseUrl));
  setupOpenApi(app);
  await app.init();
  routes.load(app.getHttpAdapter().getInstance());
  return app;
}
