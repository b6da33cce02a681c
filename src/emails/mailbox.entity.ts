import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';
import { User } from '../companies/user.entity';

/** A user's mailbox whose threads are captured. */
@Unique('mailboxes_company_id_id_key', ['companyId', 'id'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'mailboxes_company_id_fkey' })
@ForeignKey(() => User, ['companyId', 'ownerId'], ['companyId', 'id'], { name: 'mailboxes_company_id_owner_id_fkey' })
// (company_id, lower(address)): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('mailboxes_address_idx', { synchronize: false })
@Index('mailboxes_owner_idx', ['ownerId'])
@Entity({ name: 'mailboxes' })
export class Mailbox {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'mailboxes_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  address: string;

  @Column({ name: 'owner_id', type: 'bigint', nullable: true })
  ownerId: string | null;
}
