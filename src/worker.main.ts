import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { Logger } from 'nestjs-pino';
import pino from 'pino';
import { CursorsModule } from './common/cursors/cursors.module';
import { ConfigError, loadConfig } from './config/app-config';
import { RuntimeModule } from './config/runtime.module';
import { DatabaseModule } from './database/database.module';
import { DatabaseRoleError } from './database/database-role-check';
import { EmbeddedDatabaseError } from './database/embedded-postgres';
import { migrate } from './database/migrate';
import { LoggingModule } from './logging/logging.module';
import { prepareRuntime, Runtime } from './runtime';
import { WebhookWorker } from './webhooks/webhook-worker';
import { WebhookWorkerModule } from './webhooks/webhooks.module';

/** The worker alone: no HTTP server, the feed read as the API role, the webhook tables as the owner. */
@Module({})
export class WorkerModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        ClsModule.forRoot({ global: true }),
        DatabaseModule.forApi(),
        CursorsModule,
        WebhookWorkerModule,
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
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    boot.info(`${signal} received: finishing the jobs in flight`);
    await app.close();
    await runtime.embedded?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof EmbeddedDatabaseError || error instanceof DatabaseRoleError;
  process.stderr.write(`${known ? error.message : `worker failed to start: ${(error as Error).stack ?? error}`}\n`);
  process.exit(1);
});
