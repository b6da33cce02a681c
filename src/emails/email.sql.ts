import { AccountDto } from '../common/openapi/resources.dto';
import { Direction } from '../conversations/conversation.vocabulary';
import { ConversationTables } from '../conversations/conversation.sql';
import { MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
import { accountsJson, iso, micros, userJson } from '../database/sql';
import { MailboxDto } from './email.dto';

/** The SQL that reads email conversations and messages (by the conversations repository), and the rows it returns. */

export interface AddressEntry {
  address: string;
  name?: string | null;
  internal?: boolean;
}

export interface EmailConversationRow extends PositionedRow {
  public_id: string;
  subject: string;
  first_message_at: string;
  last_message_at: string;
  message_count: number;
  has_attachments: boolean;
  last_message_direction: Direction;
  participants: Array<{ address: string; name: string | null; internal: boolean }>;
  mailboxes: MailboxDto[];
  accounts: AccountDto[];
}

export interface EmailMessageRow extends MessageRowBase {
  direction: Direction;
  subject: string;
  snippet: string;
  body_text: string;
  sender: AddressEntry;
  recipients_to: AddressEntry[];
  recipients_cc: AddressEntry[];
  attachments: Array<{ filename: string; mime_type: string; size_bytes: number }>;
}

/** A conversation with its participants, mailboxes and accounts: one statement, whatever the page size. */
const CONVERSATION_SELECT = `
  SELECT c.id, ${micros('c.last_message_at')} AS position_micros, c.public_id, c.subject,
    ${iso('c.first_message_at')} AS first_message_at, ${iso('c.last_message_at')} AS last_message_at,
    c.message_count, c.has_attachments, c.last_message_direction,
    (SELECT coalesce(json_agg(json_build_object('address', p.address, 'name', p.name, 'internal', p.internal) ORDER BY p.id), '[]')
       FROM email_participants p WHERE p.conversation_id = c.id) AS participants,
    (SELECT coalesce(json_agg(json_build_object('address', mb.address, 'owner', CASE WHEN u.id IS NULL THEN NULL ELSE ${userJson('u')} END)
         ORDER BY lower(mb.address), mb.id), '[]')
       FROM email_conversation_mailboxes cm JOIN mailboxes mb ON mb.id = cm.mailbox_id LEFT JOIN users u ON u.id = mb.owner_id
       WHERE cm.conversation_id = c.id) AS mailboxes,
    ${accountsJson('email_conversation_accounts', 'conversation_id', 'c.id')} AS accounts
  FROM email_conversations c`;

/** The email tables as the conversations repository reads them. */
export const EMAIL_TABLES: ConversationTables = {
  channel: 'email',
  select: CONVERSATION_SELECT,
  conversations: 'email_conversations',
  messages: 'email_messages',
  messageColumns: 'm.direction, m.subject, m.snippet, m.body_text, m.sender, m.recipients_to, m.recipients_cc, m.attachments',
};
