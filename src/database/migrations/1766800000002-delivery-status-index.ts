import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's deliveries of one status, newest first: what `GET
 * /v1/webhook-endpoints/{id}/deliveries?state=failed` reads, a range of this index whatever the
 * share of that status (bench/webhook-deliveries.ts: a rare status read through
 * `webhook_deliveries_endpoint` examined the endpoint's whole history for a page).
 */
export class DeliveryStatusIndex1766800000002 implements MigrationInterface {
  name = 'DeliveryStatusIndex1766800000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (endpoint_id, status, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_endpoint_status');
  }
}
