import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const CLIENT_STATUSES = ['active', 'disabled', 'revoked'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/**
 * An API client: a company's credential, never a person's. `credentialVersion` goes into
 * every token and is bumped when the client is disabled or revoked, so tokens issued before
 * stay dead even if the client is enabled again.
 */
@Entity({ name: 'api_clients' })
export class ApiClient {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  status: ClientStatus;

  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ type: 'text', array: true })
  cidrs: string[];

  @Column({ name: 'credential_version', type: 'integer' })
  credentialVersion: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
