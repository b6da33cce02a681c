// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, the instrumentations patch modules before they load.
import { tracing } from './tracing';
import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { Logger } from 'nestjs-pino';
import pino from 'pino';
import { CursorsModule } from './common/cursors/cursors.module';
import { loadConfig } from './config/app-config';
import { RuntimeModule } from './config/runtime.module';
import { DatabaseModule } from './database/database.module';
import { onTermination, runEntryPoint } from './entry-point';
import { migrate } from './database/migrate';
import { LoggingModule } from './logging/logging.module';
import { Metrics } from './metrics/metrics';
import { serveMetrics } from './metrics/metrics-server';
import { MetricsModule } from './metrics/metrics.module';
import { prepareRuntime, Runtime } from './runtime';
import { WebhookWorker } from './webhooks/webhook-worker';
import { WebhookWorkerModule } from './webhooks/webhooks.module';
import { DocumentWorkerModule } from './recordings/recordings.module';

/** The worker alone: no HTTP server, the feed read as the API role, the webhook tables and the read model as the owner. */
@Module({})
export class WorkerModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        MetricsModule.forRoot(),
        ClsModule.forRoot({ global: true }),
        DatabaseModule.forApi(),
        CursorsModule,
        WebhookWorkerModule,
        DocumentWorkerModule,
      ],
    };
  }
}

/**
 * `npm run worker`: delivers webhooks apart from the API (scale senders and readers separately;
 * set WEBHOOK_WORKER=0 on the API then). Any number may run against one database.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const boot = pino({ level: config.logLevel, base: { context: 'Worker' } });
  const runtime = await prepareRuntime(config, (line) => boot.debug(line));
  if (runtime.embedded) await migrate(runtime.urls);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(runtime), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  await app.get(WebhookWorker).ready;
  boot.info('webhook worker running');
  const metricsServer = await serveMetrics(app.get(Metrics), config.metricsPort, (line) => boot.warn(line));
  if (metricsServer) boot.info(`metrics on http://localhost:${config.metricsPort}/metrics`);
  onTermination(async (signal) => {
    boot.info(`${signal} received: finishing the jobs in flight`);
    metricsServer?.close();
    await app.close();
    await tracing?.flush();
    await runtime.embedded?.stop();
    process.exit(0);
  });
}

runEntryPoint(main, 'the worker start');
