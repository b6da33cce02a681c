import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ApiClient } from './api-client.entity';
import { Company } from '../companies/company.entity';

/**
 * A client secret, kept only as its SHA-256. The current secret has no expiry; rotation
 * gives the previous one an expiry `SECRET_GRACE_SECONDS` ahead.
 */
@Check('client_secrets_secret_hash_check', '(length(secret_hash) = 32)')
@ForeignKey(() => ApiClient, ['clientId'], ['id'], { name: 'client_secrets_client_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'client_secrets_company_id_fkey' })
// (client_id, created_at DESC): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('client_secrets_client_created_idx', { synchronize: false })
@Index('client_secrets_one_current_idx', ['clientId'], { unique: true, where: '(expires_at IS NULL)' })
@Entity({ name: 'client_secrets' })
export class ClientSecret {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'client_secrets_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'client_id', type: 'bigint' })
  clientId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'secret_hash', type: 'bytea', select: false })
  secretHash: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()', insert: false, update: false })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
