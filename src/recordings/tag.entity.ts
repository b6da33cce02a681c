import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';

/** A tag a company puts on recordings. */
@CompanyRecordTable('tags')
export class Tag extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;
}
