import { Check, Column, Index, Unique } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';
import { Direction } from '../conversations/conversation.vocabulary';

/** An e-mail thread. */
@Check('email_conversations_check', '(first_message_at <= last_message_at)')
@Check('email_conversations_last_message_direction_check', `(last_message_direction = ANY (ARRAY['inbound'::text, 'outbound'::text]))`)
@Check('email_conversations_message_count_check', '(message_count >= 0)')
@Unique('email_conversations_company_id_thread_key_key', ['companyId', 'threadKey'])
@Index('email_conversations_activity_idx', ['companyId', 'lastMessageAt', 'id'])
// (company_id, public_id COLLATE "C"): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('email_conversations_export', { synchronize: false })
@CompanyRecordTable('email_conversations')
export class EmailConversation extends CompanyRecord {
  @Column({ name: 'thread_key', type: 'text' })
  threadKey: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ name: 'first_message_at', type: 'timestamptz' })
  firstMessageAt: Date;

  @Column({ name: 'last_message_at', type: 'timestamptz' })
  lastMessageAt: Date;

  @Column({ name: 'message_count', type: 'integer', default: 0 })
  messageCount: number;

  @Column({ name: 'has_attachments', type: 'boolean', default: false })
  hasAttachments: boolean;

  @Column({ name: 'last_message_direction', type: 'text' })
  lastMessageDirection: Direction;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
