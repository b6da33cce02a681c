import { Module } from '@nestjs/common';
import { ChangesRepositoryModule } from '../changes/changes-repository.module';
import { CursorsModule } from '../common/cursors/cursors.module';
import { OwnerPool } from '../database/owner-pool';
import { IdempotencyKeys } from '../webhooks/idempotency-keys';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.repository';
import { WebhookEndpoints } from '../webhooks/webhook-endpoints.repository';
import { SigningKeys } from '../webhooks/webhook-secrets';
import { WebhooksService } from '../webhooks/webhooks.service';
import { WebhookEndpointsApi } from './webhook-endpoints.api';
import { WebhookEndpointsController } from './webhook-endpoints.controller';

/**
 * The API process holds no schema owner's connection: the repositories get a stand-in that
 * refuses, so a statement that forgot its `sql` (the caller's tenant transaction) fails loudly
 * instead of reaching around row-level security.
 */
const NO_OWNER_POOL = {
  query: () => Promise.reject(new Error('the API process has no schema owner connection: run this statement in the tenant transaction')),
  transaction: () => Promise.reject(new Error('the API process has no schema owner connection')),
} as unknown as OwnerPool;

/** `/v1/webhook-endpoints`: the integrator's own webhook endpoints, on the rules the CLI uses (WebhooksService). */
@Module({
  imports: [CursorsModule, ChangesRepositoryModule],
  controllers: [WebhookEndpointsController],
  providers: [
    { provide: OwnerPool, useValue: NO_OWNER_POOL },
    WebhookEndpoints,
    WebhookDeliveries,
    SigningKeys,
    IdempotencyKeys,
    WebhooksService,
    WebhookEndpointsApi,
  ],
})
export class WebhookEndpointsModule {}
