import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from './company-record';

/** A team of a company's users. */
@CompanyRecordTable('teams')
export class Team extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;
}
