import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { DeliveryStatus } from './webhook.vocabulary';

/** One delivery of one event to one endpoint (the states in webhook-deliveries.repository.ts). */
@Check(
  'webhook_deliveries_lease',
  `
CASE
    WHEN (status = 'pending'::text) THEN ((job_id IS NULL) <> (next_attempt_at IS NULL))
    ELSE ((job_id IS NULL) AND (next_attempt_at IS NULL))
END`,
)
@Check('webhook_deliveries_status_check', `(status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text]))`)
@Unique('webhook_deliveries_public_id_key', ['publicId'])
@ForeignKey(() => WebhookEndpoint, ['endpointId'], ['id'], { name: 'webhook_deliveries_endpoint_id_fkey', onDelete: 'CASCADE' })
@Index('webhook_deliveries_created', ['createdAt'])
@Index('webhook_deliveries_due', ['endpointId', 'nextAttemptAt'], { where: "(status = 'pending'::text)" })
// (endpoint_id, id DESC): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('webhook_deliveries_endpoint', { synchronize: false })
// (endpoint_id, status, id DESC): the same, one status at a time.
@Index('webhook_deliveries_endpoint_status', { synchronize: false })
@Index('webhook_deliveries_job', ['jobId'], { where: '(job_id IS NOT NULL)' })
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'webhook_deliveries_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text', default: () => "app_public_id('whd_')" })
  publicId: string;

  @Column({ name: 'endpoint_id', type: 'bigint' })
  endpointId: string;

  @Column({ name: 'change_id', type: 'text' })
  changeId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ name: 'committed_at', type: 'timestamptz' })
  committedAt: Date;

  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'boolean', default: false })
  replay: boolean;

  @Column({ type: 'text', default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_status', type: 'integer', nullable: true })
  lastStatus: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'last_latency_ms', type: 'integer', nullable: true })
  lastLatencyMs: number | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'job_id', type: 'uuid', nullable: true })
  jobId: string | null;
}
