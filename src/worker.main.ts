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
import { BackgroundRunner } from './worker/background-runner';
import { WorkerModule } from './worker/worker.module';

/** The worker alone: no HTTP server, the feed read as the API role, the webhook tables and the read model as the owner. */
@Module({})
export class WorkerAppModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        MetricsModule.forRoot(),
        ClsModule.forRoot({ global: true }),
        DatabaseModule.forApi(),
        CursorsModule,
        WorkerModule,
      ],
    };
  }
}

/**
 * `npm run worker`: the background loops apart from the API (scale senders and readers
 * separately; set WORKER=0 on the API then). Any number may run against one database. Its metrics
 * default to port 9465, beside the API's 9464.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const boot = pino({ level: config.logLevel, base: { context: 'Worker' } });
  const runtime = await prepareRuntime(config, (line) => boot.debug(line));
  if (runtime.embedded) await migrate(runtime.urls);
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(runtime), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  await app.get(BackgroundRunner).ready;
  const metricsServer = await serveMetrics(app.get(Metrics), config.worker.metricsPort, config.metricsHost, (line) => boot.warn(line));
  if (metricsServer)
    boot.info(
      `metrics on http://${config.metricsHost.includes(':') ? `[${config.metricsHost}]` : config.metricsHost}:${config.worker.metricsPort}/metrics`,
    );
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
