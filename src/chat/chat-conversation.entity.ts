import { Check, Column, ForeignKey, Index, Unique } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';
import { User } from '../companies/user.entity';
import { Direction } from '../conversations/conversation.vocabulary';

/** A seller's chat (one contact or a group). */
@Check('chat_conversations_check', '(first_message_at <= last_message_at)')
@Check('chat_conversations_check1', '((NOT is_group) OR (contact_phone IS NULL))')
@Check('chat_conversations_check2', '((deleted_at IS NULL) = (deleted_reason IS NULL))')
@Check('chat_conversations_last_message_direction_check', `(last_message_direction = ANY (ARRAY['inbound'::text, 'outbound'::text]))`)
@Unique('chat_conversations_company_id_seller_id_chat_key_key', ['companyId', 'sellerId', 'chatKey'])
@ForeignKey(() => User, ['companyId', 'sellerId'], ['companyId', 'id'], { name: 'chat_conversations_company_id_seller_id_fkey' })
@Index('chat_conversations_activity_idx', ['companyId', 'lastMessageAt', 'id'])
// (company_id, public_id COLLATE "C"): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('chat_conversations_export', { synchronize: false })
@CompanyRecordTable('chat_conversations')
export class ChatConversation extends CompanyRecord {
  @Column({ type: 'text' })
  source: string;

  @Column({ name: 'chat_key', type: 'text' })
  chatKey: string;

  @Column({ name: 'is_group', type: 'boolean' })
  isGroup: boolean;

  @Column({ name: 'contact_phone', type: 'text', nullable: true })
  contactPhone: string | null;

  @Column({ name: 'contact_name', type: 'text' })
  contactName: string;

  @Column({ name: 'seller_id', type: 'bigint' })
  sellerId: string;

  @Column({ name: 'seller_phone', type: 'text' })
  sellerPhone: string;

  @Column({ name: 'first_message_at', type: 'timestamptz' })
  firstMessageAt: Date;

  @Column({ name: 'last_message_at', type: 'timestamptz' })
  lastMessageAt: Date;

  @Column({ name: 'last_message_direction', type: 'text' })
  lastMessageDirection: Direction;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @Column({ name: 'deleted_reason', type: 'text', nullable: true })
  deletedReason: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
