import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Company } from '../companies/company.entity';

/**
 * A create's `Idempotency-Key`, kept 24 h: what the request was (its operation and the hash of its
 * body) and its first answer, sealed (it holds the endpoint's secret). One per company, client and key.
 */
@Check('idempotency_keys_key_check', '((length(key) >= 1) AND (length(key) <= 255))')
@ForeignKey(() => Company, ['companyId'], ['id'], { name: 'idempotency_keys_company_id_fkey', onDelete: 'CASCADE' })
@Index('idempotency_keys_created', ['createdAt'])
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryColumn({ name: 'company_id', type: 'bigint', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  companyId: string;

  @PrimaryColumn({ name: 'client_id', type: 'text', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  clientId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  key: string;

  @Column({ type: 'text' })
  operation: string;

  @Column({ name: 'request_hash', type: 'text' })
  requestHash: string;

  @Column({ type: 'text' })
  answer: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
