import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A row of the audit trail as stored, partitioned by month (audit-schema.ts). `AuditEvent` is the value the writer takes. */
@Index('audit_events_company_client_idx', ['company', 'client', 'occurredAt', 'id'])
@Index('audit_events_company_time_idx', ['company', 'occurredAt', 'id'])
@Index('audit_events_request_idx', ['requestId'])
@Entity({ name: 'audit_events' })
export class AuditEventRow {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'audit_events_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @PrimaryColumn({ name: 'occurred_at', type: 'timestamptz', primaryKeyConstraintName: 'audit_events_pkey' })
  occurredAt: Date;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'now()' })
  recordedAt: Date;

  @Column({ name: 'request_id', type: 'text' })
  requestId: string;

  @Column({ type: 'text', nullable: true })
  company: string | null;

  @Column({ type: 'text', nullable: true })
  client: string | null;

  @Column({ type: 'text', nullable: true })
  address: string | null;

  @Column({ type: 'text' })
  method: string;

  @Column({ type: 'text', nullable: true })
  route: string | null;

  @Column({ name: 'path_params', type: 'jsonb', default: () => "'{}'" })
  pathParams: unknown;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  query: unknown;

  @Column({ type: 'integer' })
  status: number;

  @Column({ name: 'resource_ids', type: 'jsonb', default: () => "'[]'" })
  resourceIds: unknown;

  @Column({ type: 'boolean', default: false })
  truncated: boolean;

  @Column({ type: 'integer', default: 1 })
  attempts: number;
}
