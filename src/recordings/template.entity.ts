import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';

/** A question template a recording is answered against. */
@Unique('templates_company_id_id_key', ['companyId', 'id'])
@Unique('templates_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'templates_company_id_fkey' })
@Entity({ name: 'templates' })
export class Template {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'templates_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;
}
