import { Injectable } from '@nestjs/common';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { conversationsPage, messagesPage, MessageRowBase } from '../conversations/conversation-queries';
import { ConversationStore } from '../conversations/conversations.service';
import { ListConversationsQuery } from '../conversations/list-conversations.query';
import { accountsJson, iso, micros, userJson } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';

export interface ChatConversationRow {
  id: string;
  position_micros: string;
  public_id: string;
  source: string;
  is_group: boolean;
  contact_phone: string | null;
  contact_name: string;
  seller_user: { id: string; name: string; email: string };
  seller_phone: string;
  accounts: Array<{ id: string; domain: string; cnpj: string | null }>;
  first_message_at: string;
  last_message_at: string;
  last_message_direction: string;
  deleted_at: string | null;
  deleted_reason: string | null;
}

export interface ChatMessageRow extends MessageRowBase {
  direction: string;
  author_phone: string;
  author_name: string;
  type: string;
  text: string | null;
  media: { file_name?: string | null; mime_type: string; size_bytes: number } | null;
  transcription: string | null;
  edited_at: string | null;
  deleted_at: string | null;
  deleted_reason: string | null;
}

/** A chat with its seller and accounts: one statement, whatever the page size. */
const CONVERSATION_SELECT = `
  SELECT c.id, ${micros('c.last_message_at')} AS position_micros, c.public_id, c.source, c.is_group, c.contact_phone, c.contact_name,
    ${userJson('u')} AS seller_user, c.seller_phone,
    ${accountsJson('chat_conversation_accounts', 'conversation_id', 'c.id')} AS accounts,
    ${iso('c.first_message_at')} AS first_message_at, ${iso('c.last_message_at')} AS last_message_at, c.last_message_direction,
    ${iso('c.deleted_at')} AS deleted_at, c.deleted_reason
  FROM chat_conversations c JOIN users u ON u.id = c.seller_id`;

/**
 * Reads of chat conversations and messages, inside the request's tenant transaction. Every
 * statement filters by the company itself; row-level security is the second wall.
 */
@Injectable()
export class ChatRepository implements ConversationStore<ChatConversationRow, ChatMessageRow> {
  constructor(private readonly tenant: TenantTransaction) {}

  listPage(companyId: string, query: ListConversationsQuery, after: TimeIdPosition | null, take: number): Promise<ChatConversationRow[]> {
    return conversationsPage(this.tenant.manager, CONVERSATION_SELECT, companyId, query, after, take);
  }

  async findOne(companyId: string, publicId: string): Promise<ChatConversationRow | null> {
    const [row] = await this.tenant.manager.query(`${CONVERSATION_SELECT} WHERE c.company_id = $1 AND c.public_id = $2`, [
      companyId,
      publicId,
    ]);
    return row ?? null;
  }

  messagesPage(
    companyId: string,
    conversationPublicId: string,
    after: TimeIdPosition | null,
    take: number,
  ): Promise<ChatMessageRow[] | null> {
    return messagesPage<ChatMessageRow>(
      this.tenant.manager,
      { conversations: 'chat_conversations', messages: 'chat_messages' },
      // A message deleted for everyone is a tombstone: its content never leaves the database.
      `m.direction, m.author_phone, m.author_name, m.type,
       CASE WHEN m.deleted_at IS NULL THEN m.text END AS text,
       CASE WHEN m.deleted_at IS NULL THEN m.media END AS media,
       CASE WHEN m.deleted_at IS NULL THEN m.transcription END AS transcription,
       ${iso('m.edited_at')} AS edited_at, ${iso('m.deleted_at')} AS deleted_at, m.deleted_reason`,
      companyId,
      conversationPublicId,
      after,
      take,
    );
  }
}
