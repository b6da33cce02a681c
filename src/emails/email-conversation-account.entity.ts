import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Account } from '../companies/account.entity';
import { EmailConversation } from './email-conversation.entity';

/** A customer account an e-mail thread concerns. */
@ForeignKey(() => Account, ['companyId', 'accountId'], ['companyId', 'id'], {
  name: 'email_conversation_accounts_company_id_account_id_fkey',
})
@ForeignKey(() => EmailConversation, ['companyId', 'conversationId'], ['companyId', 'id'], {
  name: 'email_conversation_accounts_company_id_conversation_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'email_conversation_accounts' })
export class EmailConversationAccount {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'conversation_id', type: 'bigint', primaryKeyConstraintName: 'email_conversation_accounts_pkey' })
  conversationId: string;

  @PrimaryColumn({ name: 'account_id', type: 'bigint', primaryKeyConstraintName: 'email_conversation_accounts_pkey' })
  accountId: string;
}
