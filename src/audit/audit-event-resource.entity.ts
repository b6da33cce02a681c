import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An audit row's resource id, indexed for `resource_id` filters; partitioned like audit_events. */
// synchronize: false: the table has no primary key (rows are index entries, written by app_audit_index_resources)
// and TypeORM needs one to map rows, so (event_id, resource_id) stands in for it here only; entities.medium-spec.ts
// compares the columns itself.
@Index('audit_event_resources_lookup_idx', ['company', 'resourceId', 'occurredAt', 'eventId'])
@Entity({ name: 'audit_event_resources', synchronize: false })
export class AuditEventResource {
  @Column({ type: 'text' })
  company: string;

  @PrimaryColumn({ name: 'resource_id', type: 'text' })
  resourceId: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @PrimaryColumn({ name: 'event_id', type: 'bigint' })
  eventId: string;
}
