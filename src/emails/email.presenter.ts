import { EmailAddressDto, EmailConversationDto, EmailMessageDto } from './email.dto';
import { AddressEntry, EmailConversationRow, EmailMessageRow } from './email.sql';

/** The wire format of email conversations and messages, defined once; fields in the spec's order. */
export function presentEmailConversation(row: EmailConversationRow): EmailConversationDto {
  return {
    id: row.public_id,
    object: 'email_conversation',
    subject: row.subject,
    first_message_at: row.first_message_at,
    last_message_at: row.last_message_at,
    message_count: row.message_count,
    has_attachments: row.has_attachments,
    last_message_direction: row.last_message_direction,
    participants: row.participants.map(presentAddress),
    mailboxes: row.mailboxes.map(({ address, owner }) => ({ address, owner })),
    accounts: row.accounts,
  };
}

export function presentEmailMessage(row: EmailMessageRow): EmailMessageDto {
  return {
    id: row.public_id,
    object: 'email_message',
    conversation_id: row.conversation_public_id,
    sent_at: row.sent_at,
    direction: row.direction,
    subject: row.subject,
    snippet: row.snippet,
    body_text: row.body_text,
    from: presentAddress(row.sender),
    to: row.recipients_to.map(presentAddress),
    cc: row.recipients_cc.map(presentAddress),
    attachments: row.attachments.map(({ filename, mime_type, size_bytes }) => ({ filename, mime_type, size_bytes })),
  };
}

/** Only the documented fields of an address, whatever the capture stored beside them. (Exported, as every function here: the read model's format hashes them.) */
export function presentAddress(a: AddressEntry): EmailAddressDto {
  return { address: a.address, name: a.name ?? null, internal: a.internal === true };
}
