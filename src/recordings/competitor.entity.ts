import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';

/** A competitor mentioned in recordings. */
@CompanyRecordTable('competitors')
export class Competitor extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;
}
