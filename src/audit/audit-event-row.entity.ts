import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A row of the audit trail as stored; `AuditEvent` is the value the writer takes. The table is
 * partitioned by month: the entity maps the parent, the partitions are the migrations' and
 * audit:prune's (audit-schema.ts), and TypeORM's schema diff never looks at them.
 */
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
  pathParams: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  query: Record<string, unknown>;

  @Column({ type: 'integer' })
  status: number;

  @Column({ name: 'resource_ids', type: 'jsonb', default: () => "'[]'" })
  resourceIds: string[];

  @Column({ type: 'boolean', default: false })
  truncated: boolean;

  @Column({ type: 'integer', default: 1 })
  attempts: number;
}
