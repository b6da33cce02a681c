import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Company } from '../companies/company.entity';

export const CLIENT_STATUSES = ['active', 'disabled', 'revoked'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/**
 * An API client: a company's credential, never a person's. `credentialVersion` goes into
 * every token and is bumped when the client is disabled or revoked, so tokens issued before
 * stay dead even if the client is enabled again.
 */
@Check('api_clients_name_check', '((length(name) >= 1) AND (length(name) <= 200))')
@Check('api_clients_scopes_check', '(cardinality(scopes) > 0)')
@Check('api_clients_status_check', `(status = ANY (ARRAY['active'::text, 'disabled'::text, 'revoked'::text]))`)
@Unique('api_clients_public_id_key', ['publicId'])
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'api_clients_company_id_fkey' })
@Index('api_clients_company_created_idx', ['companyId', 'createdAt', 'id'])
@Entity({ name: 'api_clients' })
export class ApiClient {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'api_clients_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: 'active' })
  status: ClientStatus;

  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  cidrs: string[];

  @Column({ name: 'credential_version', type: 'integer', default: 1 })
  credentialVersion: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
