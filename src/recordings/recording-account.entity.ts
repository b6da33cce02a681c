import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Account } from '../companies/account.entity';
import { Recording } from './recording.entity';

/** A customer account a recording concerns. */
@ForeignKey(() => Account, ['companyId', 'accountId'], ['companyId', 'id'], { name: 'recording_accounts_company_id_account_id_fkey' })
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_accounts_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'recording_accounts' })
export class RecordingAccount {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_accounts_pkey' })
  recordingId: string;

  @PrimaryColumn({ name: 'account_id', type: 'bigint', primaryKeyConstraintName: 'recording_accounts_pkey' })
  accountId: string;
}
