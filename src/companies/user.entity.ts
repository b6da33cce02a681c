import { Column, Index } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from './company-record';

/** A company's user: a recording's owner, a chat's seller, a mailbox's holder. */
// (company_id, lower(email)): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('users_company_email_idx', { synchronize: false })
@CompanyRecordTable('users')
export class User extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
