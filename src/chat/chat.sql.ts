import { AccountDto, UserDto } from '../common/openapi/resources.dto';
import { Direction } from '../conversations/conversation.vocabulary';
import { ConversationTables, MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
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

const SAMPLE_AT = '2026-07-01T10:00:00.000000Z';

/** Rows as the statements above may return them, for the read model's format (ConversationChannel.formatSamples). */
export const CHAT_FORMAT_SAMPLES: { conversations: ChatConversationRow[]; messages: ChatMessageRow[] } = {
  conversations: [
    {
      id: '1',
      position_micros: '1',
      public_id: 'chat_sample',
      source: 'chat_web',
      is_group: false,
      contact_phone: '+55 11 98888-7777',
      contact_name: 'Cliente',
      seller_user: { id: 'usr_sample', name: 'Ana', email: 'ana@empresa.com.br' },
      seller_phone: '+55 11 90000-0000',
      accounts: [{ id: 'acc_sample', domain: 'cliente.com.br', cnpj: null }],
      first_message_at: SAMPLE_AT,
      last_message_at: SAMPLE_AT,
      last_message_direction: 'inbound',
      deleted_at: null,
      deleted_reason: null,
    },
    {
      id: '2',
      position_micros: '2',
      public_id: 'chat_group',
      source: 'chat_web',
      is_group: true,
      contact_phone: '+55 11 97777-6666',
      contact_name: 'Grupo',
      seller_user: { id: 'usr_sample', name: 'Ana', email: 'ana@empresa.com.br' },
      seller_phone: '+55 11 90000-0000',
      accounts: [],
      first_message_at: SAMPLE_AT,
      last_message_at: SAMPLE_AT,
      last_message_direction: 'outbound',
      deleted_at: SAMPLE_AT,
      deleted_reason: 'deleted_by_seller',
    },
  ],
  messages: [
    {
      id: '1',
      position_micros: '1',
      public_id: 'wamsg_sample',
      conversation_public_id: 'chat_sample',
      sent_at: SAMPLE_AT,
      direction: 'inbound',
      author_phone: '+55 11 98888-7777',
      author_name: 'Cliente',
      type: 'audio',
      text: 'Olá',
      media: { file_name: null, mime_type: 'audio/ogg', size_bytes: 10 },
      transcription: 'olá',
      edited_at: SAMPLE_AT,
      deleted_at: null,
      deleted_reason: null,
    },
    {
      id: '2',
      position_micros: '2',
      public_id: 'wamsg_image',
      conversation_public_id: 'chat_sample',
      sent_at: SAMPLE_AT,
      direction: 'outbound',
      author_phone: '+55 11 90000-0000',
      author_name: 'Ana',
      type: 'image',
      text: null,
      media: { mime_type: 'image/jpeg', size_bytes: 20 },
      transcription: null,
      edited_at: null,
      deleted_at: null,
      deleted_reason: null,
    },
    {
      id: '3',
      position_micros: '3',
      public_id: 'wamsg_tombstone',
      conversation_public_id: 'chat_sample',
      sent_at: SAMPLE_AT,
      direction: 'inbound',
      author_phone: '+55 11 98888-7777',
      author_name: 'Cliente',
      type: 'text',
      text: 'apagada',
      media: { file_name: 'x.pdf', mime_type: 'application/pdf', size_bytes: 30 },
      transcription: 'apagada',
      edited_at: null,
      deleted_at: SAMPLE_AT,
      deleted_reason: 'revoked_for_everyone',
    },
  ],
};
