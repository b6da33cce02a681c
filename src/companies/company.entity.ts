import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A customer company: the tenant. `id` never leaves the database layer; `publicId` does. */
@Entity({ name: 'companies' })
export class Company {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'api_access', type: 'boolean' })
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
