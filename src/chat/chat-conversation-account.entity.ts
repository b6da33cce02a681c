import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Account } from '../companies/account.entity';
import { ChatConversation } from './chat-conversation.entity';

/** A customer account a chat concerns. */
@ForeignKey(() => Account, ['companyId', 'accountId'], ['companyId', 'id'], {
  name: 'chat_conversation_accounts_company_id_account_id_fkey',
})
@ForeignKey(() => ChatConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'chat_conversation_accounts_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'chat_conversation_accounts' })
export class ChatConversationAccount {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'conversation_id', type: 'bigint', primaryKeyConstraintName: 'chat_conversation_accounts_pkey' })
  conversationId: string;

  @PrimaryColumn({ name: 'account_id', type: 'bigint', primaryKeyConstraintName: 'chat_conversation_accounts_pkey' })
  accountId: string;
}
