import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Company } from './company.entity';

/**
 * The columns a company's record starts with, in every tenant table that has public ids (tags,
 * users, recordings, conversations…): its internal id, its public id and its company.
 */
export abstract class CompanyRecord {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;
}

/**
 * The entity of a table of company records with the constraints each such table has, named as
 * PostgreSQL named them in the migrations: the public id unique, (company_id, id) unique (what
 * the composite foreign keys of the company's other tables reference), and the company's key.
 */
export function CompanyRecordTable(table: string): ClassDecorator {
  return (target) => {
    Unique(`${table}_public_id_key`, ['publicId'])(target);
    Unique(`${table}_company_id_id_key`, ['companyId', 'id'])(target);
    ForeignKey(() => Company, ['companyId'], ['id'], { name: `${table}_company_id_fkey` })(target);
    Entity({ name: table })(target);
  };
}
