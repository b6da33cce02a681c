import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from './company.entity';

/** A company's customer account (a domain, and a CNPJ when known), linked to recordings and conversations. */
@Unique('accounts_company_id_id_key', ['companyId', 'id'])
@Unique('accounts_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'accounts_company_id_fkey' })
@Entity({ name: 'accounts' })
export class Account {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'accounts_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  domain: string;

  @Column({ type: 'text', nullable: true })
  cnpj: string | null;
}
