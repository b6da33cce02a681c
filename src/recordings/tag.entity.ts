import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from '../companies/company.entity';

/** A tag a company puts on recordings. */
@Unique('tags_company_id_id_key', ['companyId', 'id'])
@Unique('tags_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'tags_company_id_fkey' })
@Entity({ name: 'tags' })
export class Tag {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'tags_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;
}
