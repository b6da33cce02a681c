import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from './company-record';

/** A company's customer account (a domain, and a CNPJ when known), linked to recordings and conversations. */
@CompanyRecordTable('accounts')
export class Account extends CompanyRecord {
  @Column({ type: 'text' })
  domain: string;

  @Column({ type: 'text', nullable: true })
  cnpj: string | null;
}
