import { Check, Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { CompanyRecord } from '../companies/company-record';
import { ChatConversation } from './chat-conversation.entity';
import { Direction } from '../conversations/conversation.vocabulary';

/** One message of a chat. */
@Check('chat_messages_check', '((deleted_at IS NULL) = (deleted_reason IS NULL))')
@Check('chat_messages_direction_check', `(direction = ANY (ARRAY['inbound'::text, 'outbound'::text]))`)
@Check('chat_messages_media_check', `((media IS NULL) OR (jsonb_typeof(media) = 'object'::text))`)
@Unique('chat_messages_conversation_id_external_id_key', ['conversationId', 'externalId'])
@Unique('chat_messages_public_id_key', ['publicId'])
@ForeignKey(() => ChatConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'chat_messages_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
@Index('chat_messages_page_idx', ['conversationId', 'sentAt', 'id'])
@Entity({ name: 'chat_messages' })
export class ChatMessage extends CompanyRecord {
  @Column({ name: 'conversation_id', type: 'bigint' })
  conversationId: string;

  @Column({ name: 'external_id', type: 'text' })
  externalId: string;

  @Column({ name: 'sent_at', type: 'timestamptz' })
  sentAt: Date;

  @Column({ type: 'text' })
  direction: Direction;

  @Column({ name: 'author_phone', type: 'text' })
  authorPhone: string;

  @Column({ name: 'author_name', type: 'text' })
  authorName: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'text', nullable: true })
  text: string | null;

  @Column({ type: 'jsonb', nullable: true })
  media: unknown | null;

  @Column({ type: 'text', nullable: true })
  transcription: string | null;

  @Column({ name: 'edited_at', type: 'timestamptz', nullable: true })
  editedAt: Date | null;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @Column({ name: 'deleted_reason', type: 'text', nullable: true })
  deletedReason: string | null;
}
