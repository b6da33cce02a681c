import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EmailConversation } from './email-conversation.entity';

/** A sender or recipient of an e-mail message. */
@ForeignKey(() => EmailConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'email_participants_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
// (conversation_id, lower(address)): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('email_participants_address_idx', { synchronize: false })
@Entity({ name: 'email_participants' })
export class EmailParticipant {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'email_participants_pkey', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'conversation_id', type: 'bigint' })
  conversationId: string;

  @Column({ type: 'text' })
  address: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'boolean' })
  internal: boolean;
}
