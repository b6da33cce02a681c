import { Logger, Module, Type } from '@nestjs/common';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { ChangeCompaction } from '../changes/change-compaction';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { ReadModelModule } from '../read-model/read-model.module';
import { WebhookSender } from '../webhooks/webhook-sender';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WorkerMetrics } from '../webhooks/worker-metrics';
import { BackgroundRunner } from './background-runner';

/**
 * The worker: the background runner and what its loops use (BackgroundRunner lists the loops).
 * In the API process with WORKER=1, or alone (`npm run worker`).
 */
@Module({
  imports: [WebhooksModule, ReadModelModule],
  providers: [WebhookSender, WorkerMetrics, ChangeCompaction, AuditMaintenance, BackgroundRunner],
  exports: [BackgroundRunner],
})
export class WorkerModule {}

/**
 * The worker for the API process: WORKER=1 (or its older name WEBHOOK_WORKER=1), and a schema
 * owner's connection to use (MIGRATION_DATABASE_URL, or the embedded database's); without one it
 * is not started, with a warning, and `npm run worker` is the way.
 */
export function inProcessWorker(runtime: { config: AppConfig; urls: DatabaseUrls }): Type[] {
  if (!runtime.config.worker.inProcess) return [];
  if (runtime.urls.owner === runtime.urls.api) {
    new Logger('Worker').warn('the worker is not started in this process: it needs the schema owner (MIGRATION_DATABASE_URL)');
    return [];
  }
  return [WorkerModule];
}
