import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';

/** A competitor mentioned in recordings. */
@Unique('competitors_company_id_id_key', ['companyId', 'id'])
@Unique('competitors_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'competitors_company_id_fkey' })
@Entity({ name: 'competitors' })
export class Competitor {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'competitors_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;
}
