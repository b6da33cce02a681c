import { Faker } from '@faker-js/faker';
import { EntityManager } from 'typeorm';
import { Direction } from '../conversations/conversation.vocabulary';
import { RecordingKind, TranscriptStatus } from '../recordings/recording.vocabulary';
import { AddressEntry, ChatMessageSpec, ConversationsFactory, MailboxRef } from './conversations.factory';
import {
  CUSTOMER_LINES,
  customerParticipants,
  DEMO_QUESTIONS,
  EMAIL_SUBJECTS,
  emailBody,
  MEETING_LABELS,
  phone,
  salesTranscript,
  SELLER_LINES,
  slug,
} from './demo-content';
import { RecordingsFactory, TemplateRef, UserRef } from './recordings.factory';
import { Ref } from './tenant-factory';

/** What the activity simulator writes, one kind per event. */
export const ACTIVITY_KINDS = [
  'meeting_captured',
  'call_captured',
  'transcript_advanced',
  'evaluation_advanced',
  'answers_filled',
  'email_captured',
  'email_captured_late',
  'chat_started',
  'chat_message_arrived',
  'chat_message_edited',
  'chat_message_revoked',
  'chat_deleted',
  'recording_removed',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** What an event writes instead when the one drawn finds nothing to act on (no transcript left to advance…). */
export const FALLBACK: Record<ActivityKind, ActivityKind> = {
  meeting_captured: 'meeting_captured',
  call_captured: 'call_captured',
  transcript_advanced: 'meeting_captured',
  evaluation_advanced: 'call_captured',
  answers_filled: 'meeting_captured',
  email_captured: 'email_captured',
  email_captured_late: 'email_captured_late',
  chat_started: 'chat_started',
  chat_message_arrived: 'chat_started',
  chat_message_edited: 'chat_started',
  chat_message_revoked: 'chat_started',
  chat_deleted: 'chat_started',
  recording_removed: 'call_captured',
};

/** The company's rows new captures point to (sellers, templates, tags, accounts, mailboxes), read once per run. */
export interface ActivityPool {
  users: UserRef[];
  templates: TemplateRef[];
  tags: Ref[];
  competitors: Ref[];
  accounts: Array<Ref & { domain: string }>;
  mailboxes: MailboxRef[];
}

/**
 * The company's sellers, templates, tags, competitors, accounts and mailboxes that new captures
 * point to (a bounded number of each). A company without a seller gets one, with a mailbox,
 * so that a bare company starts receiving captures too.
 */
export async function referencePool(m: EntityManager, companyId: string): Promise<ActivityPool> {
  const rows = (sql: string) => m.query(sql, [companyId]);
  const refs = (table: string, extra = '') =>
    rows(`SELECT id::text AS id, public_id AS "publicId"${extra} FROM ${table} WHERE company_id = $1 ORDER BY id LIMIT 50`);
  const users = await refs('users', ', name, email');
  if (!users.length) users.push(await new RecordingsFactory(m, companyId).user());
  const mailboxes = await rows('SELECT id::text AS id, address FROM mailboxes WHERE company_id = $1 ORDER BY id LIMIT 20');
  if (!mailboxes.length) mailboxes.push(await new ConversationsFactory(m, companyId).mailbox(users[0]));
  const templates = await rows(
    `SELECT t.id::text AS id, t.public_id AS "publicId",
       json_agg(json_build_object('id', q.id::text, 'publicId', q.public_id, 'text', q.text, 'type', q.type, 'position', q.position)
         ORDER BY q.position) AS questions
     FROM templates t JOIN template_questions q ON q.template_id = t.id
     WHERE t.company_id = $1 GROUP BY t.id ORDER BY t.id DESC LIMIT 5`,
  );
  return {
    users,
    mailboxes,
    templates,
    tags: await refs('tags'),
    competitors: await refs('competitors'),
    accounts: await refs('accounts', ', domain'),
  };
}

/** What one event wrote: its kind (the fallback's, when the drawn kind had nothing to act on), what it acted on, what it created. */
export interface Written {
  kind: ActivityKind;
  /** Public id of the record or conversation written. */
  subject: string;
  /** Public ids of the rows it created (gone again when its transaction rolls back). */
  created: string[];
  /** Internal id of a record it captured (one the run may remove later). */
  captured?: string;
}

/** How far back a capture system looks for work: the newest records of a kind (a bounded index walk at any volume). */
const WINDOW = 500;
/** Candidates fetched per claim, and how many of them are tried. */
const CANDIDATES = 20;
const TRIES = 5;
/** A company keeps at least this many live chats and records of each kind in its newest window. */
const KEEP = 4;

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

/**
 * The writes of a capture system, one event at a time, inside the transaction `m` of that
 * event, as the schema owner, through the factories (public ids minted as everywhere else;
 * derived fields left to the database: audience from participants, a conversation's activity
 * from its messages by the triggers). An event that changes something that exists first
 * claims its row (`FOR NO KEY UPDATE … SKIP LOCKED`, re-checking that it still qualifies), as
 * a pool of capture workers would: concurrent events never act on one record, chat or thread
 * at once, so no two transactions both advance one transcript, and the triggers that derive a
 * conversation's activity never run beside another insert into the same conversation (they
 * aggregate the messages their own statement sees: two concurrent, unclaimed inserts into one
 * chat were seen to leave `last_message_at` at the earlier message when the later one committed
 * first). The record's own `updated_at` is never written here (the change feed's triggers own it).
 */
export class CaptureEvents {
  private readonly recordings: RecordingsFactory;
  private readonly conversations: ConversationsFactory;

  constructor(
    private readonly m: EntityManager,
    private readonly companyId: string,
    private readonly f: Faker,
    private readonly pool: ActivityPool,
    /** The run's start (a late e-mail was sent before it) and the records it captured (removed first). */
    private readonly run: { startedAt: Date; captured: readonly string[] },
  ) {
    this.recordings = new RecordingsFactory(m, companyId);
    this.conversations = new ConversationsFactory(m, companyId);
  }

  /** Writes one event of `kind`, or of its fallback when there is nothing to act on. */
  async write(kind: ActivityKind): Promise<Written> {
    const written = (await this.attempt(kind)) ?? (await this.attempt(FALLBACK[kind]));
    if (!written) throw new Error(`${kind}: nothing to act on, and its fallback ${FALLBACK[kind]} neither`);
    return written;
  }

  private attempt(kind: ActivityKind): Promise<Written | null> {
    switch (kind) {
      case 'meeting_captured':
      case 'call_captured':
        return this.recordingCaptured(kind === 'meeting_captured' ? 'meeting' : 'call');
      case 'transcript_advanced':
        return this.transcriptAdvanced();
      case 'evaluation_advanced':
        return this.evaluationAdvanced();
      case 'answers_filled':
        return this.answersFilled();
      case 'email_captured':
        return this.emailCaptured(false);
      case 'email_captured_late':
        return this.emailCaptured(true);
      case 'chat_started':
        return this.chatStarted();
      case 'chat_message_arrived':
        return this.chatMessageArrived();
      case 'chat_message_edited':
      case 'chat_message_revoked':
        return this.chatMessageChanged(kind);
      case 'chat_deleted':
        return this.chatDeleted();
      case 'recording_removed':
        return this.recordingRemoved();
    }
  }

  /** A meeting or call just ended: captured with its transcript not ready yet, template questions unanswered, no evaluation. */
  private async recordingCaptured(kind: RecordingKind): Promise<Written> {
    const { f, pool } = this;
    const account = this.account();
    const durationSeconds = f.number.int({ min: 300, max: 3600 });
    const meetingAt = new Date(Date.now() - (durationSeconds + f.number.int({ min: 60, max: 900 })) * 1000);
    const external = f.datatype.boolean(0.8);
    const template = pool.templates.length && f.datatype.boolean(0.7) ? f.helpers.arrayElement(pool.templates) : undefined;
    const ref = await this.recordings.recording(kind, {
      owner: f.helpers.arrayElement(pool.users),
      title: `${kind === 'meeting' ? 'Reunião' : 'Ligação'} ${f.helpers.arrayElement(MEETING_LABELS)} — ${f.company.name()}`,
      mediaType: kind === 'call' || f.datatype.boolean(0.2) ? 'audio' : 'video',
      meetingAt,
      durationSeconds,
      noShow: f.datatype.boolean(0.05),
      transcript: f.datatype.boolean(0.7) ? 'not_started' : 'processing',
      template,
      answers: null,
      tags: f.helpers.arrayElements(pool.tags, { min: 0, max: Math.min(2, pool.tags.length) }),
      competitors: f.helpers.arrayElements(pool.competitors, { min: 0, max: Math.min(1, pool.competitors.length) }),
      accounts: account ? [account] : [],
      participants: external ? customerParticipants(f, kind, f.person.fullName(), account?.domain ?? 'cliente.com.br') : [],
      botHistory: [
        { code: 'joining_call', subcode: null, occurred_at: meetingAt.toISOString() },
        { code: 'in_call_recording', subcode: null, occurred_at: new Date(meetingAt.getTime() + 60_000).toISOString() },
      ],
    });
    return { kind: `${kind}_captured`, subject: ref.publicId, created: [ref.publicId], captured: ref.id };
  }

  /** not_started → processing → completed (the original variant) or failed → processing again; completed → the enhanced variant. */
  private async transcriptAdvanced(): Promise<Written | null> {
    const pending = `(r.transcript_status <> 'completed' OR NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id AND t.variant = 'enhanced'))`;
    const row = await this.claimRecording<{
      id: string;
      public_id: string;
      transcript_status: TranscriptStatus;
      duration_seconds: number;
      owner: string;
      customer: string;
      has_original: boolean;
    }>(
      `SELECT r.id FROM (${this.newest('id, transcript_status')}) r WHERE ${pending}`,
      `SELECT r.id, r.public_id, r.transcript_status, r.duration_seconds, u.name AS owner,
         coalesce(r.participants->0->>'display_name', 'Participante') AS customer,
         EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id AND t.variant = 'original') AS has_original
       FROM recordings r JOIN users u ON u.id = r.owner_id
       WHERE r.id = $1 AND ${pending} FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const utterances = () => salesTranscript(row.owner, row.customer, row.duration_seconds, this.f.number.int(1000));
    if (row.transcript_status === 'completed') {
      await this.recordings.transcript(row.id, row.has_original ? 'enhanced' : 'original', utterances());
    } else if (row.transcript_status !== 'processing') {
      await this.recordings.transcriptStatus(row.id, 'processing');
    } else if (this.f.datatype.boolean(0.85)) {
      if (!row.has_original) await this.recordings.transcript(row.id, 'original', utterances());
      await this.recordings.transcriptStatus(row.id, 'completed');
    } else {
      await this.recordings.transcriptStatus(row.id, 'failed');
    }
    return { kind: 'transcript_advanced', subject: row.public_id, created: [] };
  }

  /** On a readable transcript: none → not_started or processing → completed (a score) or failed → processing again. */
  private async evaluationAdvanced(): Promise<Written | null> {
    const pending = `r.transcript_status = 'completed' AND e.status IS DISTINCT FROM 'completed'`;
    const row = await this.claimRecording<{ id: string; public_id: string; status: string | null }>(
      `SELECT r.id FROM (${this.newest('id, transcript_status')}) r LEFT JOIN recording_evaluations e ON e.recording_id = r.id WHERE ${pending}`,
      `SELECT r.id, r.public_id, e.status FROM recordings r LEFT JOIN recording_evaluations e ON e.recording_id = r.id
       WHERE r.id = $1 AND ${pending} FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const created: string[] = [];
    if (row.status === null)
      created.push((await this.recordings.evaluation(row.id, this.f.datatype.boolean() ? 'not_started' : 'processing')).publicId);
    else if (row.status !== 'processing') await this.recordings.evaluationStatus(row.id, 'processing');
    else if (this.f.datatype.boolean(0.85))
      await this.recordings.evaluationStatus(row.id, 'completed', this.f.number.int({ min: 35, max: 98 }));
    else await this.recordings.evaluationStatus(row.id, 'failed');
    return { kind: 'evaluation_advanced', subject: row.public_id, created };
  }

  /** The next one or two unanswered questions of a record's template get their answers. */
  private async answersFilled(): Promise<Written | null> {
    const unanswered = `FROM template_questions q WHERE q.template_id = r.template_id
      AND NOT EXISTS (SELECT 1 FROM recording_answers a WHERE a.recording_id = r.id AND a.question_id = q.id)`;
    const row = await this.claimRecording<{ id: string; public_id: string; questions: Array<{ id: string; type: string }> }>(
      `SELECT r.id FROM (${this.newest('id, template_id', 'AND template_id IS NOT NULL')}) r WHERE EXISTS (SELECT 1 ${unanswered})`,
      `SELECT r.id, r.public_id, (SELECT json_agg(json_build_object('id', q.id::text, 'type', q.type) ORDER BY q.position) ${unanswered}) AS questions
       FROM recordings r WHERE r.id = $1 AND EXISTS (SELECT 1 ${unanswered}) FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const created: string[] = [];
    for (const q of row.questions.slice(0, this.f.number.int({ min: 1, max: 2 }))) {
      const answers = DEMO_QUESTIONS.find((d) => d.type === q.type)?.answers ?? ['Resposta'];
      created.push((await this.recordings.answer(row.id, q, this.f.helpers.arrayElement(answers))).publicId);
    }
    return { kind: 'answers_filled', subject: row.public_id, created };
  }

  /**
   * An e-mail captured from a mailbox: a reply in a thread of the company, or a new thread.
   * Late: captured now but sent before the run started (a mailbox connected late, a sync
   * backlog), so it lands behind its conversation's `last_message_at`, or starts a conversation
   * in the past.
   */
  private async emailCaptured(late: boolean): Promise<Written> {
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
  private async chatStarted(): Promise<Written> {
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
  private async chatMessageArrived(): Promise<Written | null> {
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
  private async chatMessageChanged(kind: 'chat_message_edited' | 'chat_message_revoked'): Promise<Written | null> {
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
  private async chatDeleted(): Promise<Written | null> {
    const live = await this.m.query(`${LIVE_CHATS} LIMIT ${KEEP + 1}`, [this.companyId]);
    if (live.length <= KEEP) return null;
    const chat = await this.claim<ChatRow>(LIVE_CHATS, [this.companyId], CLAIM_CHAT);
    if (!chat) return null;
    await this.conversations.deleteChat({ id: chat.id, publicId: chat.public_id });
    return { kind: 'chat_deleted', subject: chat.public_id, created: [] };
  }

  /** A record is removed (with everything it shows): one this run captured when there is one, else one of the newest. */
  private async recordingRemoved(): Promise<Written | null> {
    const claim = `SELECT id, public_id FROM recordings WHERE id = $1 FOR UPDATE SKIP LOCKED`;
    let ids = this.run.captured.slice(-CANDIDATES);
    if (!ids.length) {
      ids = (await this.m.query(this.newest('id', '', CANDIDATES), [this.companyId, this.recordingKind()])).map((r: { id: string }) =>
        String(r.id),
      );
      if (ids.length <= KEEP) return null;
    }
    const row = await this.claimOne<{ id: string; public_id: string }>(ids, claim);
    if (!row) return null;
    await this.recordings.removeRecording(row.id);
    return { kind: 'recording_removed', subject: row.public_id, created: [] };
  }

  /** The newest records of a kind of the company ($1, $2), with `columns`: where a capture system looks for work. */
  private newest(columns: string, filter = '', limit = WINDOW): string {
    return `SELECT ${columns} FROM recordings WHERE company_id = $1 AND kind = $2 ${filter} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
  }

  private account(): (Ref & { domain: string }) | undefined {
    return this.pool.accounts.length ? this.f.helpers.arrayElement(this.pool.accounts) : undefined;
  }

  private recordingKind(): RecordingKind {
    return this.f.datatype.boolean() ? 'meeting' : 'call';
  }

  /** Claims a record as claim() does, of either kind (a kind drawn first, then the other); `candidates` takes the company and the kind. */
  private async claimRecording<T>(candidates: string, claim: string): Promise<T | null> {
    const first = this.recordingKind();
    for (const kind of [first, first === 'meeting' ? 'call' : 'meeting']) {
      const row = await this.claim<T>(candidates, [this.companyId, kind], claim);
      if (row) return row;
    }
    return null;
  }

  /**
   * Claims one row for this transaction: reads up to CANDIDATES ids with `candidates`, then
   * locks the first of a few of them, in random order, that `claim` (by id, `$1`) still
   * returns: a row another event holds is skipped, one that stopped qualifying is not returned.
   */
  private async claim<T>(candidates: string, params: unknown[], claim: string): Promise<T | null> {
    const ids = (await this.m.query(`${candidates} LIMIT ${CANDIDATES}`, params)).map((r: { id: string }) => String(r.id));
    return this.claimOne<T>(ids, claim);
  }

  private async claimOne<T>(ids: string[], claim: string): Promise<T | null> {
    for (const id of this.f.helpers.shuffle(ids).slice(0, TRIES)) {
      const [row] = await this.m.query(claim, [id]);
      if (row) return row as T;
    }
    return null;
  }
}
