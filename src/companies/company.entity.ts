import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

/** A customer company: the tenant. `id` never leaves the database layer; `publicId` does. */
@Check('companies_name_check', '((length(name) >= 1) AND (length(name) <= 200))')
@Unique('companies_public_id_key', ['publicId'])
@Entity({ name: 'companies' })
export class Company {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'companies_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'api_access', type: 'boolean', default: true })
  apiAccess: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** Company features that can be switched, and the column each is kept in. */
export const COMPANY_FEATURES = { API_ACCESS: 'apiAccess' } as const;
export type CompanyFeature = keyof typeof COMPANY_FEATURES;

export function featuresOf(company: Company): Record<CompanyFeature, boolean> {
  return { API_ACCESS: company.apiAccess };
}
