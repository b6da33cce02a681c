import { Check, Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { CompanyRecord } from '../companies/company-record';
import { EmailConversation } from './email-conversation.entity';
import { Direction } from '../conversations/conversation.vocabulary';

/** One message of an e-mail thread. */
@Check('email_messages_attachments_check', `(jsonb_typeof(attachments) = 'array'::text)`)
@Check('email_messages_direction_check', `(direction = ANY (ARRAY['inbound'::text, 'outbound'::text]))`)
@Check('email_messages_recipients_cc_check', `(jsonb_typeof(recipients_cc) = 'array'::text)`)
@Check('email_messages_recipients_to_check', `(jsonb_typeof(recipients_to) = 'array'::text)`)
@Check('email_messages_sender_check', `(jsonb_typeof(sender) = 'object'::text)`)
@Unique('email_messages_company_id_message_id_key', ['companyId', 'messageId'])
@Unique('email_messages_public_id_key', ['publicId'])
@ForeignKey(() => EmailConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'email_messages_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
@Index('email_messages_page_idx', ['conversationId', 'sentAt', 'id'])
@Entity({ name: 'email_messages' })
export class EmailMessage extends CompanyRecord {
  @Column({ name: 'conversation_id', type: 'bigint' })
  conversationId: string;

  @Column({ name: 'message_id', type: 'text' })
  messageId: string;

  @Column({ name: 'sent_at', type: 'timestamptz' })
  sentAt: Date;

  @Column({ type: 'text' })
  direction: Direction;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text' })
  snippet: string;

  @Column({ name: 'body_text', type: 'text' })
  bodyText: string;

  @Column({ type: 'jsonb' })
  sender: unknown;

  @Column({ name: 'recipients_to', type: 'jsonb', default: () => "'[]'" })
  recipientsTo: unknown;

  @Column({ name: 'recipients_cc', type: 'jsonb', default: () => "'[]'" })
  recipientsCc: unknown;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attachments: unknown;
}
