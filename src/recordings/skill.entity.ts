import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';

/** A skill recordings are scored on. */
@Unique('skills_company_id_id_key', ['companyId', 'id'])
@Unique('skills_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'skills_company_id_fkey' })
@Entity({ name: 'skills' })
export class Skill {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'skills_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;
}
