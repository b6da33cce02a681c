import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from './company.entity';

/** A company's user: a recording's owner, a chat's seller, a mailbox's holder. */
@Unique('users_company_id_id_key', ['companyId', 'id'])
@Unique('users_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'users_company_id_fkey' })
// (company_id, lower(email)): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('users_company_email_idx', { synchronize: false })
@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'users_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
