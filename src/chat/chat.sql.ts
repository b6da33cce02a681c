import { AccountDto, UserDto } from '../common/openapi/resources.dto';
import { Direction } from '../conversations/conversation.vocabulary';
import { ConversationTables } from '../conversations/conversation.sql';
import { MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
import { accountsJson, iso, micros, userJson } from '../database/sql';

/** The SQL that reads chat conversations and messages (by the conversations repository), and the rows it returns. */

export interface ChatConversationRow extends PositionedRow {
  public_id: string;
  source: string;
  is_group: boolean;
  contact_phone: string | null;
  contact_name: string;
  seller_user: UserDto;
  seller_phone: string;
  accounts: AccountDto[];
  first_message_at: string;
  last_message_at: string;
  last_message_direction: Direction;
  deleted_at: string | null;
  deleted_reason: string | null;
}

export interface ChatMessageRow extends MessageRowBase {
  direction: Direction;
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

/** The chat tables as the conversations repository reads them. */
export const CHAT_TABLES: ConversationTables = {
  channel: 'chat',
  select: CONVERSATION_SELECT,
  conversations: 'chat_conversations',
  messages: 'chat_messages',
  // A message deleted for everyone is a tombstone: its content never leaves the database.
  messageColumns: `m.direction, m.author_phone, m.author_name, m.type,
       CASE WHEN m.deleted_at IS NULL THEN m.text END AS text,
       CASE WHEN m.deleted_at IS NULL THEN m.media END AS media,
       CASE WHEN m.deleted_at IS NULL THEN m.transcription END AS transcription,
       ${iso('m.edited_at')} AS edited_at, ${iso('m.deleted_at')} AS deleted_at, m.deleted_reason`,
};
