import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';
import { ChangeObject } from '../changes/change.vocabulary';
import { EndpointState } from './webhook.vocabulary';

/** A webhook endpoint as the admin registers it: destination, types, sealed signing secrets, and where its batch stands. */
// synchronize: false: TypeORM has no xid8 type; entities.medium-spec.ts compares this entity's columns itself.
@Check('webhook_endpoints_description_check', '((description IS NULL) OR (length(description) <= 200))')
@Check('webhook_endpoints_check', `((state = 'failing'::text) = (failing_since IS NOT NULL))`)
@Check('webhook_endpoints_check1', '((previous_secret IS NULL) = (previous_secret_until IS NULL))')
@Check('webhook_endpoints_state_check', `(state = ANY (ARRAY['active'::text, 'failing'::text]))`)
@Check('webhook_endpoints_types_check', '((types IS NULL) OR (cardinality(types) > 0))')
@Check('webhook_endpoints_url_check', '((length(url) >= 1) AND (length(url) <= 2048))')
@Unique('webhook_endpoints_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'webhook_endpoints_company_id_fkey', onDelete: 'CASCADE' })
@Index('webhook_endpoints_company', ['companyId'])
@Entity({ name: 'webhook_endpoints', synchronize: false })
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'webhook_endpoints_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text', array: true, nullable: true })
  types: ChangeObject[] | null;

  @Column({ type: 'text', default: 'active' })
  state: EndpointState;

  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ type: 'text' })
  secret: string;

  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_until', type: 'timestamptz', nullable: true })
  previousSecretUntil: Date | null;

  /** xid8, which TypeORM has no type for: declared as text (node-postgres reads it as one), the reason this entity is not synchronized. */
  @Column({ name: 'position_xid', type: 'text' })
  positionXid: string;

  @Column({ name: 'position_seq', type: 'bigint', default: 0 })
  positionSeq: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'position_epoch', type: 'integer' })
  positionEpoch: number;

  @Column({ name: 'batch_job', type: 'uuid', nullable: true })
  batchJob: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** False while the integrator paused it: its deliveries wait (docs/API.md, "Managing your webhooks"). */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
