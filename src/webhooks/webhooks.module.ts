import { Logger, Module, Type } from '@nestjs/common';
import { ChangesRepository } from '../changes/changes.repository';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { CursorsModule } from '../common/cursors/cursors.module';
import { CompaniesModule } from '../companies/companies.module';
import { DocumentWorkerModule } from '../recordings/recordings.module';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookQueue } from './webhook-queue';
import { WebhookSender } from './webhook-sender';
import { WebhookStore } from './webhook-store';
import { WebhookWorker } from './webhook-worker';
import { WebhooksService } from './webhooks.service';
import { WorkerMetrics } from './worker-metrics';

/**
 * Webhook endpoints, their deliveries and the queue: what the CLI's `webhooks:*` commands use.
 * The feed is read through the same repository and tenant transaction as `GET /v1/changes`.
 */
@Module({
  imports: [CursorsModule, CompaniesModule],
  providers: [WebhookStore, WebhookQueue, WebhookDispatcher, ChangesRepository, WebhooksService],
  exports: [WebhookStore, WebhookQueue, WebhookDispatcher, WebhooksService],
})
export class WebhooksModule {}

/** The worker's loops on top: in the API process (WEBHOOK_WORKER=1) or alone (`npm run worker`). */
@Module({ imports: [WebhooksModule], providers: [WebhookSender, WebhookWorker, WorkerMetrics], exports: [WebhookWorker] })
export class WebhookWorkerModule {}

/**
 * The worker for the API process (webhooks, and the read model's refresher): WEBHOOK_WORKER=1,
 * and a schema owner's connection to use (MIGRATION_DATABASE_URL, or the embedded database's);
 * without one it is not started, with a warning, and `npm run worker` is the way.
 */
export function inProcessWorker(runtime: { config: AppConfig; urls: DatabaseUrls }): Type[] {
  if (!runtime.config.webhooks.inProcess) return [];
  if (runtime.urls.owner === runtime.urls.api) {
    new Logger('Webhooks').warn('the webhook worker is not started in this process: it needs the schema owner (MIGRATION_DATABASE_URL)');
    return [];
  }
  return [WebhookWorkerModule, DocumentWorkerModule];
}
