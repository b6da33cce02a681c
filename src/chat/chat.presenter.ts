import { ChatConversationDto, ChatMessageDto } from './chat.dto';
import { ChatConversationRow, ChatMessageRow } from './chat.sql';

/**
 * The wire format of chat conversations and messages, defined once; fields in the spec's order.
 * A deleted chat is still a chat: it answers with `deleted_at` and `deleted_reason` set.
 */
export function presentChatConversation(row: ChatConversationRow): ChatConversationDto {
  return {
    id: row.public_id,
    object: 'chat_conversation',
    source: row.source,
    is_group: row.is_group,
    contact: { phone: row.is_group ? null : row.contact_phone, name: row.contact_name },
    seller: { user: row.seller_user, phone: row.seller_phone },
    accounts: row.accounts,
    first_message_at: row.first_message_at,
    last_message_at: row.last_message_at,
    last_message_direction: row.last_message_direction,
    deleted_at: row.deleted_at,
    deleted_reason: row.deleted_reason,
  };
}

/** A message deleted for everyone is a tombstone: in place, `deleted_*` set, every content field null. */
export function presentChatMessage(row: ChatMessageRow): ChatMessageDto {
  const tombstone = row.deleted_at !== null;
  return {
    id: row.public_id,
    object: 'chat_message',
    conversation_id: row.conversation_public_id,
    sent_at: row.sent_at,
    direction: row.direction,
    author: { phone: row.author_phone, name: row.author_name },
    type: row.type,
    text: tombstone ? null : row.text,
    media:
      tombstone || !row.media
        ? null
        : { file_name: row.media.file_name ?? null, mime_type: row.media.mime_type, size_bytes: row.media.size_bytes },
    transcription: tombstone ? null : row.transcription,
    edited_at: row.edited_at,
    deleted_at: row.deleted_at,
    deleted_reason: row.deleted_reason,
  };
}
