import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EmailConversation } from './email-conversation.entity';
import { Mailbox } from './mailbox.entity';

/** A mailbox a thread was seen in. */
@ForeignKey(() => EmailConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'email_conversation_mailboxes_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
@ForeignKey(() => Mailbox, ['companyId', 'mailboxId'], ['companyId', 'id'], {
  name: 'email_conversation_mailboxes_company_id_mailbox_id_fkey',
})
@Entity({ name: 'email_conversation_mailboxes' })
export class EmailConversationMailbox {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'conversation_id', type: 'bigint', primaryKeyConstraintName: 'email_conversation_mailboxes_pkey' })
  conversationId: string;

  @PrimaryColumn({ name: 'mailbox_id', type: 'bigint', primaryKeyConstraintName: 'email_conversation_mailboxes_pkey' })
  mailboxId: string;
}
