import { ID_PREFIX, mintId } from '../common/ids/public-id';
import { Direction } from '../conversations/conversation.vocabulary';
import { normalizeMsgId, threadKey, threadSubject } from '../emails/email-thread';
import { Ref, TenantFactory, token } from './tenant-factory';
import type { UserRef } from './recordings.factory';
import { BULK_CHAT_MESSAGES, BULK_CHATS, BULK_EMAIL_MESSAGES, BULK_EMAILS } from './conversations-bulk-sql';

export interface AddressEntry {
  address: string;
  name?: string | null;
  internal: boolean;
}

export interface AttachmentMeta {
  filename: string;
  mime_type: string;
  size_bytes: number;
}

export interface MailboxRef {
  id: string;
  address: string;
}

/** One email as a mailbox captured it. Everything but the mailbox has a default. */
export interface EmailSpec {
  mailbox: MailboxRef;
  /** `<id@domain>`; a new one by default. The same id captured again is the same message. */
  messageId?: string;
  inReplyTo?: string | null;
  references?: string | null;
  sentAt?: Date;
  direction?: Direction;
  subject?: string;
  snippet?: string;
  body?: string;
  from?: AddressEntry;
  to?: AddressEntry[];
  cc?: AddressEntry[];
  attachments?: AttachmentMeta[];
}

export interface EmailIngested {
  conversation: Ref;
  /** Null when the message was already captured (by another mailbox). */
  message: Ref | null;
  messageId: string;
}

export interface ChatMessageSpec {
  sentAt?: Date;
  direction?: Direction;
  authorPhone?: string;
  authorName?: string;
  type?: string;
  text?: string | null;
  media?: { file_name: string | null; mime_type: string; size_bytes: number } | null;
  transcription?: string | null;
}

export interface ChatSpec {
  seller: UserRef;
  sellerPhone?: string;
  source?: string;
  isGroup?: boolean;
  /** The contact; a group has no phone. */
  contact?: { phone: string | null; name: string };
  accounts?: Ref[];
  /** At least one: a chat exists from its first message. */
  messages: ChatMessageSpec[];
}

export interface ChatRef extends Ref {
  messages: Ref[];
}

const minutesAfter = (from: Date, minutes: number) => new Date(from.getTime() + minutes * 60_000);

/**
 * Builds email and chat conversations in every documented state, as the capture pipeline
 * would write them: emails are ingested one captured copy at a time and deduplicated by
 * thread and `Message-ID`; a conversation's activity columns follow from its messages (the
 * database triggers derive them).
 */
export class ConversationsFactory extends TenantFactory {
  async mailbox(owner: UserRef | null, address = owner?.email ?? `caixa.${token()}@empresa.com.br`): Promise<MailboxRef> {
    const [row] = await this.db.query('INSERT INTO mailboxes (company_id, address, owner_id) VALUES ($1, $2, $3) RETURNING id', [
      this.companyId,
      address,
      owner?.id ?? null,
    ]);
    return { id: String(row.id), address };
  }

  /** Ingests one captured email: finds or starts its thread's conversation, adds the mailbox, adds the message once. */
  async email(spec: EmailSpec): Promise<EmailIngested> {
    const messageId = spec.messageId ?? `<${token()}${token()}@mail.example.com>`;
    const direction = spec.direction ?? 'outbound';
    const sentAt = spec.sentAt ?? new Date();
    const subject = spec.subject ?? `Proposta ${token()}`;
    const mailboxEntry = { address: spec.mailbox.address, name: null, internal: true };
    const external = { address: `contato.${token()}@cliente.com.br`, name: 'Contato Cliente', internal: false };
    const from = spec.from ?? (direction === 'outbound' ? mailboxEntry : external);
    const to = spec.to ?? [direction === 'outbound' ? external : mailboxEntry];
    const [conversation] = await this.db.query(
      `INSERT INTO email_conversations (public_id, company_id, thread_key, subject, first_message_at, last_message_at, last_message_direction)
       VALUES ($1, $2, $3, $4, $5, $5, $6)
       ON CONFLICT (company_id, thread_key) DO UPDATE SET thread_key = EXCLUDED.thread_key
       RETURNING id, public_id`,
      [mintId('emailConversation'), this.companyId, threadKey({ ...spec, messageId }), threadSubject(subject), sentAt, direction],
    );
    await this.db.query(
      `INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [this.companyId, conversation.id, spec.mailbox.id],
    );
    const body = spec.body ?? `Olá,\n\nSegue a proposta conforme conversamos.\n\nAbraços`;
    const [message] = await this.db.query(
      `INSERT INTO email_messages (public_id, company_id, conversation_id, message_id, sent_at, direction, subject, snippet, body_text,
         sender, recipients_to, recipients_cc, attachments)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (company_id, message_id) DO NOTHING RETURNING id, public_id`,
      [
        mintId('emailMessage'),
        this.companyId,
        conversation.id,
        normalizeMsgId(messageId),
        sentAt,
        direction,
        subject,
        spec.snippet ?? body.replace(/\s+/g, ' ').slice(0, 120),
        body,
        JSON.stringify(from),
        JSON.stringify(to),
        JSON.stringify(spec.cc ?? []),
        JSON.stringify(spec.attachments ?? []),
      ],
    );
    return {
      conversation: { id: String(conversation.id), publicId: conversation.public_id },
      message: message ? { id: String(message.id), publicId: message.public_id } : null,
      messageId,
    };
  }

  /** A thread of `count` messages a minute apart from `from`, alternating outbound and inbound, in one mailbox. */
  async thread(
    mailbox: MailboxRef,
    count: number,
    from: Date,
    subject = `Negociação ${token()}`,
  ): Promise<{ conversation: Ref; messages: Ref[]; rootMessageId: string }> {
    const messages: Ref[] = [];
    let root: string | null = null;
    let conversation: Ref | null = null;
    for (let i = 0; i < count; i++) {
      const sent: EmailIngested = await this.email({
        mailbox,
        subject: i === 0 ? subject : `Re: ${subject}`,
        sentAt: minutesAfter(from, i),
        direction: i % 2 === 0 ? 'outbound' : 'inbound',
        references: root,
      });
      root ??= sent.messageId;
      conversation = sent.conversation;
      if (sent.message) messages.push(sent.message);
    }
    if (!conversation || !root) throw new Error('a thread needs a message');
    return { conversation, messages, rootMessageId: root };
  }

  async emailAccounts(conversation: Ref, accounts: Ref[]): Promise<void> {
    await this.link('email_conversation_accounts', 'conversation_id', conversation.id, 'account_id', accounts);
  }

  /** A chat and its first messages. */
  async chat(spec: ChatSpec): Promise<ChatRef> {
    if (!spec.messages.length) throw new Error('a chat exists from its first message');
    const isGroup = spec.isGroup ?? false;
    const contact = spec.contact ?? { phone: isGroup ? null : `+55 11 9${token().slice(0, 4)}-${token().slice(0, 4)}`, name: 'Cliente' };
    const first = spec.messages[0].sentAt ?? new Date();
    const conversation = await this.insert('chat_conversations', 'chatConversation', {
      source: spec.source ?? 'chat_web',
      chat_key: isGroup ? `group:${token()}${token()}` : (contact.phone ?? `contact:${token()}`),
      is_group: isGroup,
      contact_phone: contact.phone,
      contact_name: contact.name,
      seller_id: spec.seller.id,
      seller_phone: spec.sellerPhone ?? '+55 11 90000-0000',
      first_message_at: first,
      last_message_at: first,
      last_message_direction: spec.messages[0].direction ?? 'inbound',
    });
    await this.link('chat_conversation_accounts', 'conversation_id', conversation.id, 'account_id', spec.accounts);
    const messages: Ref[] = [];
    for (const m of spec.messages) messages.push(await this.chatMessage(conversation, m));
    return { ...conversation, messages };
  }

  /** A message arrives in a chat (which moves its `last_message_at` when it is the latest). */
  chatMessage(conversation: Ref, m: ChatMessageSpec): Promise<Ref> {
    const direction = m.direction ?? 'inbound';
    return this.insert('chat_messages', 'chatMessage', {
      conversation_id: conversation.id,
      external_id: `${token()}${token()}`,
      sent_at: m.sentAt ?? new Date(),
      direction,
      author_phone: m.authorPhone ?? (direction === 'outbound' ? '+55 11 90000-0000' : '+55 11 98888-7777'),
      author_name: m.authorName ?? (direction === 'outbound' ? 'Vendedor' : 'Cliente'),
      type: m.type ?? 'text',
      text: m.text === undefined ? `Mensagem ${token()}` : m.text,
      media: m.media ? JSON.stringify(m.media) : null,
      transcription: m.transcription ?? null,
    });
  }

  async editChatMessage(message: Ref, text: string, editedAt = new Date()): Promise<void> {
    await this.db.query('UPDATE chat_messages SET text = $2, edited_at = $3 WHERE id = $1', [message.id, text, editedAt]);
  }

  /** Deleted for everyone: the row stays, as a tombstone. */
  async deleteChatMessage(message: Ref, reason = 'revoked_for_everyone', deletedAt = new Date()): Promise<void> {
    await this.db.query('UPDATE chat_messages SET deleted_at = $2, deleted_reason = $3 WHERE id = $1', [message.id, deletedAt, reason]);
  }

  async deleteChat(conversation: Ref, reason = 'deleted_by_seller', deletedAt = new Date()): Promise<void> {
    await this.db.query('UPDATE chat_conversations SET deleted_at = $2, deleted_reason = $3 WHERE id = $1', [
      conversation.id,
      deletedAt,
      reason,
    ]);
  }

  /**
   * `count` one-message email conversations in one statement, their last message one second
   * apart from `from` (or all at `from`, ties broken by id), for pagination and volume.
   */
  async bulkEmails(count: number, mailbox: MailboxRef, from: Date, options: { sameInstant?: boolean } = {}): Promise<void> {
    await this.db.query(BULK_EMAILS, [
      this.companyId,
      count,
      from,
      options.sameInstant ?? false,
      mailbox.id,
      mailbox.address,
      ID_PREFIX.emailConversation,
      ID_PREFIX.emailMessage,
    ]);
  }

  /** `count` one-message chats of `seller` in one statement, as bulkEmails does for emails. */
  async bulkChats(count: number, seller: UserRef, from: Date, options: { sameInstant?: boolean } = {}): Promise<void> {
    await this.db.query(BULK_CHATS, [
      this.companyId,
      count,
      from,
      options.sameInstant ?? false,
      seller.id,
      ID_PREFIX.chatConversation,
      ID_PREFIX.chatMessage,
    ]);
  }

  /** `count` more messages in one conversation, one second apart from `from` (or all at `from`). */
  async bulkMessages(
    channel: 'email' | 'chat',
    conversation: Ref,
    count: number,
    from: Date,
    options: { sameInstant?: boolean } = {},
  ): Promise<void> {
    const sql = channel === 'email' ? BULK_EMAIL_MESSAGES : BULK_CHAT_MESSAGES;
    const prefix = channel === 'email' ? ID_PREFIX.emailMessage : ID_PREFIX.chatMessage;
    await this.db.query(sql, [this.companyId, conversation.id, from, options.sameInstant ?? false, count, prefix]);
  }
}
