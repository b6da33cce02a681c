import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook leases belong to the job that holds them (src/webhooks/webhook-deliveries.repository.ts
 * is the state machine). An endpoint's outstanding batch is `batch_job`, a delivery in a batch
 * names its job in `job_id`; either is held exactly while that job is in pg-boss's queue waiting,
 * retrying or running, and only that job's current run releases it. The times that stood for a
 * lease before (`batch_pending` since `batch_claimed_at`, a delivery's `claimed_at`, taken as lost
 * three expiries after its dispatch) go: a batch that waited in the queue longer than that was
 * dispatched a second time while its first job still existed.
 *
 * What a batch of the earlier rule held is due again at once; its job, if it still runs, finds
 * nothing of its own to send and completes.
 */
export class DeliveryLeases1765800000000 implements MigrationInterface {
  name = 'DeliveryLeases1765800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

const UP: string[] = [
  `ALTER TABLE webhook_endpoints ADD COLUMN batch_job uuid`,
  `ALTER TABLE webhook_deliveries ADD COLUMN job_id uuid`,
  `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending' AND next_attempt_at IS NULL`,
  `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE status <> 'pending' AND next_attempt_at IS NOT NULL`,
  `ALTER TABLE webhook_endpoints DROP COLUMN batch_pending, DROP COLUMN batch_claimed_at`,
  `ALTER TABLE webhook_deliveries DROP COLUMN claimed_at`,
  `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_lease CHECK (
     CASE WHEN status = 'pending' THEN (job_id IS NULL) <> (next_attempt_at IS NULL)
     ELSE job_id IS NULL AND next_attempt_at IS NULL END)`,
  `CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id) WHERE job_id IS NOT NULL`,
];

const DOWN: string[] = [
  `DROP INDEX webhook_deliveries_job`,
  `ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_lease`,
  `ALTER TABLE webhook_deliveries ADD COLUMN claimed_at timestamptz`,
  `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE job_id IS NOT NULL`,
  `ALTER TABLE webhook_endpoints ADD COLUMN batch_pending boolean NOT NULL DEFAULT false, ADD COLUMN batch_claimed_at timestamptz,
     ADD CHECK (batch_pending = (batch_claimed_at IS NOT NULL))`,
  `ALTER TABLE webhook_deliveries DROP COLUMN job_id`,
  `ALTER TABLE webhook_endpoints DROP COLUMN batch_job`,
];
