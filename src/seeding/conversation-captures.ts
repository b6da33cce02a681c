import { Direction } from '../conversations/conversation.vocabulary';
import { Written } from './activity-kinds';
import { CaptureWriter, KEEP } from './capture-writer';
import { AddressEntry, ChatMessageSpec } from './conversations.factory';
import { CUSTOMER_LINES, EMAIL_SUBJECTS, emailBody, phone, SELLER_LINES, slug } from './demo-content';

const DAY_MS = 86_400_000;

const LIVE_CHATS = `SELECT id FROM chat_conversations WHERE company_id = $1 AND deleted_at IS NULL ORDER BY last_message_at DESC, id DESC`;
/** Claims a live chat; the conversation row is the lock every writer of its messages takes first. */
const CLAIM_CHAT = `SELECT c.id, c.public_id, c.is_group, c.contact_phone, c.contact_name, c.seller_phone, u.name AS seller_name
  FROM chat_conversations c JOIN users u ON u.id = c.seller_id
  WHERE c.id = $1 AND c.deleted_at IS NULL FOR NO KEY UPDATE OF c SKIP LOCKED`;

interface ChatRow {
  id: string;
  public_id: string;
  is_group: boolean;
  contact_phone: string | null;
  contact_name: string;
  seller_phone: string;
  seller_name: string;
}

/** The capture events of e-mails and chats: an e-mail captured (late or not), a chat started, its messages arriving, edited, revoked, the chat deleted. */
export class ConversationCaptures extends CaptureWriter {
  /**
   * An e-mail captured from a mailbox: a reply in a thread of the company, or a new thread.
   * Late: captured now but sent before the run started (a mailbox connected late, a sync
   * backlog), so it lands behind its conversation's `last_message_at`, or starts a conversation
   * in the past.
   */
  async emailCaptured(late: boolean): Promise<Written> {
    const { f } = this;
    const before = new Date(this.run.startedAt.getTime() - 60_000);
    const thread = f.datatype.boolean(0.6)
      ? await this.claim<{
          id: string;
          thread_key: string;
          subject: string;
          first_message_at: Date;
          mailbox_id: string;
          mailbox_address: string;
          contact_address: string | null;
          contact_name: string | null;
        }>(
          `SELECT id FROM email_conversations WHERE company_id = $1 AND first_message_at < $2 ORDER BY last_message_at DESC, id DESC`,
          [this.companyId, late ? before : 'infinity'],
          `SELECT c.id, c.thread_key, c.subject, c.first_message_at, mb.id AS mailbox_id, mb.address AS mailbox_address,
             p.address AS contact_address, p.name AS contact_name
           FROM email_conversations c
           JOIN LATERAL (SELECT b.id, b.address FROM email_conversation_mailboxes x JOIN mailboxes b ON b.id = x.mailbox_id
             WHERE x.conversation_id = c.id ORDER BY b.id LIMIT 1) mb ON true
           LEFT JOIN LATERAL (SELECT address, name FROM email_participants WHERE conversation_id = c.id AND NOT internal ORDER BY id LIMIT 1) p ON true
           WHERE c.id = $1 FOR NO KEY UPDATE OF c SKIP LOCKED`,
        )
      : null;
    const contactName = thread?.contact_name ?? f.person.fullName();
    const contact: AddressEntry = {
      address: thread?.contact_address ?? `${slug(contactName)}@${this.account()?.domain ?? 'cliente.com.br'}`,
      name: contactName,
      internal: false,
    };
    const mailbox = thread ? { id: thread.mailbox_id, address: thread.mailbox_address } : f.helpers.arrayElement(this.pool.mailboxes);
    const self: AddressEntry = { address: mailbox.address, name: null, internal: true };
    const outbound = f.datatype.boolean();
    const from = late ? Math.max(thread ? new Date(thread.first_message_at).getTime() : 0, before.getTime() - 7 * DAY_MS) : 0;
    const sent = await this.conversations.email({
      mailbox,
      references: thread ? `<${thread.thread_key}>` : null,
      inReplyTo: thread ? `<${thread.thread_key}>` : null,
      subject: thread ? `Re: ${thread.subject}` : `${f.helpers.arrayElement(EMAIL_SUBJECTS)} — ${f.company.name()}`,
      sentAt: late ? new Date(f.number.int({ min: from, max: before.getTime() })) : new Date(),
      direction: outbound ? 'outbound' : 'inbound',
      from: outbound ? self : contact,
      to: [outbound ? contact : self],
      body: emailBody(outbound, contactName, f.number.int(100)),
    });
    const created = [sent.message?.publicId, thread ? undefined : sent.conversation.publicId].filter((id): id is string => !!id);
    return { kind: late ? 'email_captured_late' : 'email_captured', subject: sent.conversation.publicId, created };
  }

  /** A new contact writes to a seller: a chat starts with its first message. */
  async chatStarted(): Promise<Written> {
    const { f } = this;
    const name = f.person.fullName();
    const account = this.account();
    const chat = await this.conversations.chat({
      seller: f.helpers.arrayElement(this.pool.users),
      sellerPhone: phone(f),
      contact: { phone: phone(f), name },
      accounts: account ? [account] : [],
      messages: [{ direction: 'inbound', authorName: name, text: f.helpers.arrayElement(CUSTOMER_LINES) }],
    });
    return { kind: 'chat_started', subject: chat.publicId, created: [chat.publicId, ...chat.messages.map((m) => m.publicId)] };
  }

  /** A message arrives in a live chat: text mostly, now and then a voice note (with its transcription) or an image. */
  async chatMessageArrived(): Promise<Written | null> {
    const { f } = this;
    const chat = await this.claim<ChatRow>(LIVE_CHATS, [this.companyId], CLAIM_CHAT);
    if (!chat) return null;
    const direction: Direction = f.datatype.boolean() ? 'inbound' : 'outbound';
    const inbound = direction === 'inbound';
    const kind = f.helpers.weightedArrayElement([
      { weight: 8, value: 'text' },
      { weight: 1, value: 'audio' },
      { weight: 1, value: 'image' },
    ]);
    const spec: ChatMessageSpec = {
      sentAt: new Date(),
      direction,
      authorPhone: inbound ? (chat.contact_phone ?? phone(f)) : chat.seller_phone,
      authorName: inbound ? (chat.is_group ? f.person.fullName() : chat.contact_name) : chat.seller_name,
      type: kind,
      text: kind === 'text' ? f.helpers.arrayElement(inbound ? CUSTOMER_LINES : SELLER_LINES) : null,
      media:
        kind === 'audio'
          ? { file_name: null, mime_type: 'audio/ogg', size_bytes: f.number.int({ min: 8_000, max: 400_000 }) }
          : kind === 'image'
            ? { file_name: 'foto.jpg', mime_type: 'image/jpeg', size_bytes: f.number.int({ min: 40_000, max: 900_000 }) }
            : null,
      transcription: kind === 'audio' ? f.helpers.arrayElement(inbound ? CUSTOMER_LINES : SELLER_LINES) : null,
    };
    const message = await this.conversations.chatMessage({ id: chat.id, publicId: chat.public_id }, spec);
    return { kind: 'chat_message_arrived', subject: chat.public_id, created: [message.publicId] };
  }

  /** A text message of a live chat is edited, or deleted for everyone (it stays as a tombstone). */
  async chatMessageChanged(kind: 'chat_message_edited' | 'chat_message_revoked'): Promise<Written | null> {
    const chat = await this.claim<ChatRow>(LIVE_CHATS, [this.companyId], CLAIM_CHAT);
    if (!chat) return null;
    const messages: Array<{ id: string; public_id: string; direction: Direction }> = await this.m.query(
      `SELECT id, public_id, direction FROM chat_messages WHERE conversation_id = $1 AND deleted_at IS NULL AND type = 'text'
       ORDER BY sent_at DESC, id DESC LIMIT 10`,
      [chat.id],
    );
    if (!messages.length) return null;
    const message = this.f.helpers.arrayElement(messages);
    const ref = { id: message.id, publicId: message.public_id };
    if (kind === 'chat_message_revoked') await this.conversations.deleteChatMessage(ref);
    else
      await this.conversations.editChatMessage(
        ref,
        this.f.helpers.arrayElement(message.direction === 'inbound' ? CUSTOMER_LINES : SELLER_LINES),
      );
    return { kind, subject: message.public_id, created: [] };
  }

  /** A seller deletes a chat (kept, marked deleted); never one of the last few live chats. */
  async chatDeleted(): Promise<Written | null> {
    const live = await this.m.query(`${LIVE_CHATS} LIMIT ${KEEP + 1}`, [this.companyId]);
    if (live.length <= KEEP) return null;
    const chat = await this.claim<ChatRow>(LIVE_CHATS, [this.companyId], CLAIM_CHAT);
    if (!chat) return null;
    await this.conversations.deleteChat({ id: chat.id, publicId: chat.public_id });
    return { kind: 'chat_deleted', subject: chat.public_id, created: [] };
  }
}
