import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A client secret, kept only as its SHA-256. The current secret has no expiry; rotation
 * gives the previous one an expiry `SECRET_GRACE_SECONDS` ahead.
 */
@Entity({ name: 'client_secrets' })
export class ClientSecret {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'client_id', type: 'bigint' })
  clientId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'secret_hash', type: 'bytea', select: false })
  secretHash: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz', insert: false, update: false })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
