import { Module } from '@nestjs/common';
import { ChangesRepositoryModule } from '../changes/changes-repository.module';
import { CursorsModule } from '../common/cursors/cursors.module';
import { CompaniesModule } from '../companies/companies.module';
import { OwnerPoolModule } from '../database/owner-pool';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpoints } from './webhook-endpoints.repository';
import { WebhookQueue } from './webhook-queue';
import { SigningKeys } from './webhook-secrets';
import { WebhooksService } from './webhooks.service';
import { IdempotencyKeys } from './idempotency-keys';
import { WebhookAdmin } from './webhook-admin';

/**
 * Webhook endpoints, their deliveries and the queue: what the CLI's `webhooks:*` commands
 * (WebhookAdmin) and the worker use, on the schema owner's pool. The feed is read through the same repository and tenant
 * transaction as `GET /v1/changes`.
 */
@Module({
  imports: [OwnerPoolModule, CursorsModule, CompaniesModule, ChangesRepositoryModule],
  providers: [
    WebhookEndpoints,
    WebhookDeliveries,
    WebhookQueue,
    WebhookDispatcher,
    WebhooksService,
    IdempotencyKeys,
    WebhookAdmin,
    SigningKeys,
  ],
  exports: [
    OwnerPoolModule,
    WebhookEndpoints,
    WebhookDeliveries,
    WebhookQueue,
    WebhookDispatcher,
    WebhooksService,
    WebhookAdmin,
    SigningKeys,
  ],
})
export class WebhooksModule {}
