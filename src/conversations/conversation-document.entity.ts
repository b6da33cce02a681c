import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An e-mail thread's or chat's stored JSON text and its messages' (the read model). */
@Check('conversation_documents_channel_check', `(channel = ANY (ARRAY['email'::text, 'chat'::text]))`)
@Check('conversation_documents_check', '(((format IS NULL) = (document IS NULL)) AND ((document IS NULL) = (messages IS NULL)))')
@Index('conversation_documents_empty', ['channel', 'conversationId'], { where: '(document IS NULL)' })
@Index('conversation_documents_format', ['format', 'channel', 'conversationId'])
@Entity({ name: 'conversation_documents' })
export class ConversationDocument {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'conversation_documents_pkey' })
  channel: string;

  @PrimaryColumn({ name: 'conversation_id', type: 'bigint', primaryKeyConstraintName: 'conversation_documents_pkey' })
  conversationId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'integer', nullable: true })
  format: number | null;

  @Column({ type: 'text', nullable: true })
  document: string | null;

  @Column({ type: 'text', nullable: true })
  messages: string | null;
}
