import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';
import { ChangeAction, ChangeObject, ChangedPart } from './change.vocabulary';

/** One entry of the change feed, written by the capture triggers (capture-sql.ts). */
// synchronize: false: TypeORM has no xid8 type; entities.medium-spec.ts compares this entity's columns itself.
@Check('change_log_action_check', `(action = ANY (ARRAY['created'::text, 'updated'::text, 'deleted'::text]))`)
@Check(
  'change_log_changed_check',
  `(changed <@ ARRAY['details'::text, 'transcript'::text, 'evaluation'::text, 'answers'::text, 'messages'::text])`,
)
@Check(
  'change_log_object_check',
  `(object = ANY (ARRAY['meeting'::text, 'call'::text, 'email'::text, 'email_message'::text, 'chat'::text, 'chat_message'::text]))`,
)
@Unique('change_log_object_transaction_key', ['companyId', 'object', 'objectKey', 'epoch', 'xid'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'change_log_company_id_fkey' })
@Index('change_log_committed_idx', ['committedAt'])
@Entity({ name: 'change_log', synchronize: false })
export class ChangeLogEntry {
  @PrimaryColumn({ name: 'company_id', type: 'bigint', primaryKeyConstraintName: 'change_log_pkey' })
  companyId: string;

  /** xid8, which TypeORM has no type for: declared as text (node-postgres reads it as one), the reason this entity is not synchronized. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'change_log_pkey', default: () => 'pg_current_xact_id()' })
  xid: string;

  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'change_log_pkey', generatedIdentity: 'ALWAYS' })
  seq: string;

  @Column({ name: 'public_id', type: 'text', default: () => "app_public_id('chg_')" })
  publicId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'change_log_pkey' })
  object: ChangeObject;

  @Column({ name: 'object_id', type: 'text' })
  objectId: string;

  @Column({ name: 'parent_id', type: 'text', nullable: true })
  parentId: string | null;

  @Column({ type: 'text' })
  action: ChangeAction;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  changed: ChangedPart[];

  @Column({ name: 'committed_at', type: 'timestamptz', default: () => 'now()' })
  committedAt: Date;

  @Column({ name: 'object_key', type: 'bigint' })
  objectKey: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'change_log_pkey' })
  epoch: number;
}
