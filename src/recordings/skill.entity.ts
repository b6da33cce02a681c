import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';

/** A skill recordings are scored on. */
@CompanyRecordTable('skills')
export class Skill extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;
}
