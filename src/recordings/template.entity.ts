import { Column } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';

/** A question template a recording is answered against. */
@CompanyRecordTable('templates')
export class Template extends CompanyRecord {
  @Column({ type: 'text' })
  name: string;
}
