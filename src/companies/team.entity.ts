import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from './company.entity';

/** A team of a company's users. */
@Unique('teams_company_id_id_key', ['companyId', 'id'])
@Unique('teams_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'teams_company_id_fkey' })
@Entity({ name: 'teams' })
export class Team {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'teams_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;
}
