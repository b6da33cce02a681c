import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule, requestMiddleware } from './app.module';
import { docsSecurityMiddleware } from './common/http/docs-security.middleware';
import { HardenedExpressAdapter } from './common/http/hardened-express-adapter';
import { RouteTable } from './common/http/route-table';
import { setupOpenApi } from './openapi';
import { Runtime } from './runtime';

/**
 * Builds the HTTP application: the same pipeline for `main.ts` and the e2e tests. The request
 * pipeline is declared in app.module.ts, as one ordered list; this adds what Express itself
 * must be told (trust proxy, no ETag, no freshness) and the OpenAPI document's routes.
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
  for (const middleware of requestMiddleware(app)) app.use(middleware);
  // The human docs run Swagger UI: its scripts and styles from here, its requests to the API only.
  app.use('/docs', docsSecurityMiddleware(runtime.config.publicBaseUrl));
  setupOpenApi(app);
  await app.init();
  app.get(RouteTable).load(app.getHttpAdapter().getInstance());
  return app;
}
