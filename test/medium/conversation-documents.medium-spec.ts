import { NestExpressApplication } from '@nestjs/platform-express';
import { ClsService } from 'nestjs-cls';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CHAT_CHANNEL } from '../../src/chat/chat-channel';
import { Company } from '../../src/companies/company.entity';
import { AppConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { ConversationsRepository } from '../../src/conversations/conversations.repository';
import { ConversationsService, storedColumns } from '../../src/conversations/conversations.service';
import { ListConversationsQuery } from '../../src/conversations/list-conversations.query';
import { TenantTransaction } from '../../src/database/tenant-transaction';
import { OwnerPool } from '../../src/database/owner-pool';
import { EMAIL_CHANNEL } from '../../src/emails/email-channel';
import { Metrics } from '../../src/metrics/metrics';
import { conversationDocumentRefresher } from '../../src/read-model/conversation-documents';
import { DocumentRefresher } from '../../src/read-model/document-refresher';
import { ChatRef, ConversationsFactory, MailboxRef } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { createTestApp, ownerDataSource } from '../support/test-app';

/**
 * The read model of e-mail and chat conversations (conversation_documents): a stored document
 * and its messages are exactly what a reader renders live; every write that changes what a
 * conversation or its messages show empties it in its own transaction; the refresher never
 * writes a stale one, whichever way it and a writer interleave (forced with real transactions);
 * readers serve the stored text only while it is current and of their format.
 */

let owner: DataSource;
let app: NestExpressApplication;
let service: ConversationsService;
let refresher: DocumentRefresher;
let ownerPool: OwnerPool;
let company: Company;
let people: RecordingsFactory;
let conversations: ConversationsFactory;
let ana: UserRef;
let account: Ref;
let mailbox: MailboxRef;
let email: { conversation: Ref; messages: Ref[] };
let chat: ChatRef;

beforeAll(async () => {
  [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
  service = app.get(ConversationsService);
  ownerPool = new OwnerPool(app.get(DatabaseUrls), app.get(AppConfig), new Metrics(false));
  refresher = conversationDocumentRefresher(ownerPool, [EMAIL_CHANNEL, CHAT_CHANNEL]);
  company = await createCompany(owner);
  people = new RecordingsFactory(owner, company.id);
  conversations = new ConversationsFactory(owner, company.id);
  ana = await people.user({ name: 'Ana Lima', email: `ana.${company.publicId}@example.com` });
  account = await people.account();
  mailbox = await conversations.mailbox(ana);
  email = await conversations.thread(mailbox, 3, new Date('2026-07-01T10:00:00Z'));
  await conversations.email({
    mailbox,
    attachments: [{ filename: 'proposta.pdf', mime_type: 'application/pdf', size_bytes: 1234 }],
    cc: [{ address: 'copia@cliente.com.br', name: null, internal: false }],
  });
  await conversations.emailAccounts(email.conversation, [account]);
  chat = await conversations.chat({
    seller: ana,
    accounts: [account],
    messages: [{ text: 'Olá' }, { text: 'Tudo bem?', direction: 'outbound' }, { type: 'audio', text: null, transcription: 'áudio' }],
  });
  await conversations.deleteChatMessage(chat.messages[2]);
});
afterAll(() => Promise.all([owner.destroy(), app.close(), ownerPool.onApplicationShutdown()]));

type Channel = typeof EMAIL_CHANNEL | typeof CHAT_CHANNEL;

/** Runs `work` as a request of the company would (its tenant transaction, a caller with every scope). */
function asCaller<T>(work: () => Promise<T>): Promise<T> {
  const cls = app.get(ClsService);
  return cls.run(() => {
    cls.set('principal', {
      companyId: company.id,
      companyPublicId: company.publicId,
      companyName: company.name,
      clientId: 'cli_test',
      clientName: 'test',
      scopes: [...ALL_SCOPES],
    });
    return app.get(TenantTransaction).run(company.id, work);
  });
}

/** What the detail route answers for `id` with its messages (stored when current, else live). */
const read = (channel: Channel, id: string) =>
  asCaller(async () => (await service.get(channel as never, id, { include: ['messages'] })).text);

/** What the list answers, every conversation with its messages. */
const list = (channel: Channel) =>
  asCaller(async () => {
    const query = Object.assign(new ListConversationsQuery(), { limit: 100, include: ['messages'] });
    return (await service.list(channel as never, query)).data.map((d) => d.text);
  });

/** The stored row of a conversation, as the owner sees it. */
async function stored(channel: 'email' | 'chat', conversation: Ref) {
  const [row] = await owner.query(
    'SELECT document, messages, format FROM conversation_documents WHERE channel = $1 AND conversation_id = $2',
    [channel, conversation.id],
  );
  return row ?? null;
}

/** The stored text as a reader with messages serves it. */
const storedText = async (channel: 'email' | 'chat', conversation: Ref) => {
  const row = await stored(channel, conversation);
  return row?.document == null ? null : `${row.document.slice(0, -1)},"included":{"messages":${row.messages},"messages_next_cursor":null}}`;
};

const CASES: Array<[string, Channel, () => Ref, 'email' | 'chat']> = [
  ['an e-mail (with attachments, cc, an account)', EMAIL_CHANNEL, () => email.conversation, 'email'],
  ['a chat (with a tombstone, an account)', CHAT_CHANNEL, () => chat, 'chat'],
];

describe('conversation documents', () => {
  it('gives a new conversation an empty document in the transaction that creates it', async () => {
    expect(await stored('email', email.conversation)).toEqual({ document: null, messages: null, format: null });
    expect(await stored('chat', chat)).toEqual({ document: null, messages: null, format: null });
  });

  it.each(CASES)('stores exactly what the live rendering answers: %s', async (_what, channel, conversation, name) => {
    const live = await read(channel, conversation().publicId);
    const liveList = await list(channel);
    await refresher.refreshAll();
    expect((await stored(name, conversation())).format).toBe(channel.documentFormat);
    expect(await storedText(name, conversation())).toBe(live);
    expect(await read(channel, conversation().publicId)).toBe(live);
    expect(await list(channel)).toEqual(liveList);
  });

  it('serves the stored text (not a live rendering) while it is current, and never one of another format', async () => {
    await refresher.refreshAll();
    const row = await stored('email', email.conversation);
    const marked = JSON.stringify({ ...JSON.parse(row.document), subject: 'from the read model' });
    const messages = JSON.stringify(JSON.parse(row.messages).map((m: object) => ({ ...m, snippet: 'stored' })));
    await owner.query('UPDATE conversation_documents SET document = $3, messages = $4 WHERE channel = $1 AND conversation_id = $2', [
      'email',
      email.conversation.id,
      marked,
      messages,
    ]);
    const served = JSON.parse(await read(EMAIL_CHANNEL, email.conversation.publicId));
    expect(served.subject).toBe('from the read model');
    expect(served.included.messages.every((m: { snippet: string }) => m.snippet === 'stored')).toBe(true);
    await owner.query(`UPDATE conversation_documents SET format = format + 1 WHERE channel = 'email' AND conversation_id = $1`, [
      email.conversation.id,
    ]);
    const live = JSON.parse(await read(EMAIL_CHANNEL, email.conversation.publicId));
    expect(live.subject).not.toBe('from the read model');
    expect(live.included.messages.some((m: { snippet: string }) => m.snippet === 'stored')).toBe(false);
    await refresher.refreshAll();
    expect((await stored('email', email.conversation)).format).toBe(EMAIL_CHANNEL.documentFormat);
    expect(await read(EMAIL_CHANNEL, email.conversation.publicId)).toBe(JSON.stringify(live));
  });

  describe('every write that changes what a conversation or its messages show empties it, in its own transaction', () => {
    const WRITES: Array<[string, 'email' | 'chat', () => Promise<unknown>, (doc: Json) => unknown, unknown]> = [
      [
        'the conversation itself',
        'chat',
        () => owner.query(`UPDATE chat_conversations SET contact_name = 'Cliente Novo' WHERE id = $1`, [chat.id]),
        (d) => d.contact.name,
        'Cliente Novo',
      ],
      [
        'a message edited in place (no entry for the conversation itself)',
        'chat',
        () => conversations.editChatMessage(chat.messages[0], 'Olá, editado'),
        (d) => d.included.messages[0].text,
        'Olá, editado',
      ],
      [
        'a message arriving',
        'chat',
        () => conversations.chatMessage(chat, { text: 'Nova mensagem', sentAt: new Date('2027-01-01T00:00:00Z') }),
        (d) => d.included.messages.at(-1).text,
        'Nova mensagem',
      ],
      [
        'a message removed',
        'email',
        () => owner.query('DELETE FROM email_messages WHERE id = $1', [email.messages[2].id]),
        (d) => d.included.messages.map((m: Json) => m.id).includes(email.messages[2].publicId),
        false,
      ],
      [
        'a shared row it shows (its account given another domain)',
        'email',
        () => owner.query(`UPDATE accounts SET domain = 'renomeada.com.br' WHERE id = $1`, [account.id]),
        (d) => d.accounts.map((a: Json) => a.domain),
        ['renomeada.com.br'],
      ],
      [
        'its seller renamed',
        'chat',
        () => owner.query(`UPDATE users SET name = 'Ana Souza' WHERE id = $1`, [ana.id]),
        (d) => d.seller.user.name,
        'Ana Souza',
      ],
      [
        "its mailbox's owner renamed",
        'email',
        () => owner.query(`UPDATE users SET name = 'Ana Reis' WHERE id = $1`, [ana.id]),
        (d) => d.mailboxes[0].owner.name,
        'Ana Reis',
      ],
    ];

    it.each(WRITES)('%s', async (_what, name, write, pick, expected) => {
      const [channel, conversation] = name === 'email' ? [EMAIL_CHANNEL, email.conversation] : [CHAT_CHANNEL, chat];
      await refresher.refreshAll();
      expect((await stored(name, conversation)).document).not.toBeNull();
      await write();
      expect(await stored(name, conversation)).toEqual({ document: null, messages: null, format: null });
      const live = await read(channel, conversation.publicId);
      expect(pick(JSON.parse(live))).toEqual(expected);
      await refresher.refreshAll();
      expect(await storedText(name, conversation)).toBe(live);
    });

    it('a message moved to another conversation empties both', async () => {
      const other = await conversations.chat({ seller: ana, messages: [{ text: 'Outra conversa' }] });
      await refresher.refreshAll();
      await owner.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [chat.messages[1].id, other.id]);
      expect((await stored('chat', chat)).document).toBeNull();
      expect((await stored('chat', other)).document).toBeNull();
      await refresher.refreshAll();
      const moved = JSON.parse((await storedText('chat', other))!).included.messages.map((m: Json) => m.id);
      expect(moved).toContain(chat.messages[1].publicId);
      expect(JSON.parse((await storedText('chat', chat))!).included.messages.map((m: Json) => m.id)).not.toContain(
        chat.messages[1].publicId,
      );
    });

    it('a removed conversation loses its document with it', async () => {
      const gone = await conversations.chat({ seller: ana, messages: [{ text: 'Some' }] });
      await refresher.refreshAll();
      expect(await stored('chat', gone)).not.toBeNull();
      await owner.query('DELETE FROM chat_conversations WHERE id = $1', [gone.id]);
      expect(await stored('chat', gone)).toBeNull();
    });
  });

  describe('the refresher and a writer, interleaved', () => {
    let writer: Client;
    beforeEach(async () => {
      writer = new Client({ connectionString: app.get(DatabaseUrls).owner });
      await writer.connect();
      await writer.query(`SET application_name = 'conversation-documents-writer'`);
    });
    afterEach(() => writer.end());

    /** Resolves once the writer's backend waits for a lock. */
    async function writerWaitsForALock(): Promise<void> {
      for (let i = 0; i < 400; i++) {
        const [{ n }] = await owner.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'conversation-documents-writer' AND wait_event_type = 'Lock'`,
        );
        if (n > 0) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('the writer never waited for a lock');
    }

    it('a message edited while the refresher renders empties the document after it: never stale', async () => {
      await refresher.refreshAll();
      await conversations.editChatMessage(chat.messages[0], 'Antes'); // empties it
      let writing: Promise<unknown> | undefined;
      const run = await refresher.refreshBatch(1000, async (ids) => {
        expect(ids).toContain(chat.id);
        // The refresher holds the row; the writer edits a message and must wait for it.
        writing = writer.query(`BEGIN; UPDATE chat_messages SET text = 'Depois' WHERE id = ${Number(chat.messages[0].id)}; COMMIT;`);
        await writerWaitsForALock();
      });
      expect(run.rendered).toBeGreaterThan(0);
      await writing;
      // The refresher wrote what it saw ('Antes'); the writer's commit emptied it after that.
      expect(await stored('chat', chat)).toEqual({ document: null, messages: null, format: null });
      expect(JSON.parse(await read(CHAT_CHANNEL, chat.publicId)).included.messages[0].text).toBe('Depois');
      await refresher.refreshAll();
      expect(JSON.parse((await storedText('chat', chat))!).included.messages[0].text).toBe('Depois');
    });

    it('a write in progress keeps the refresher off the document until it commits', async () => {
      await refresher.refreshAll();
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO email_participants (company_id, conversation_id, address, name, internal) VALUES ($1, $2, 'novo@cliente.com.br', 'Novo', false)`,
        [company.id, email.conversation.id],
      );
      let locked: string[] = [];
      await refresher.refreshBatch(1000, async (ids) => void (locked = ids));
      expect(locked).not.toContain(email.conversation.id);
      expect((await stored('email', email.conversation)).document).not.toBeNull(); // others still see the old one
      await writer.query('COMMIT');
      expect(await stored('email', email.conversation)).toEqual({ document: null, messages: null, format: null });
      await refresher.refreshAll();
      expect(JSON.parse((await storedText('email', email.conversation))!).participants.map((p: Json) => p.address)).toContain(
        'novo@cliente.com.br',
      );
    });
  });

  it('a conversation removed between the page and its stored messages is left out (gone), the others shown', async () => {
    const kept = await conversations.chat({ seller: ana, messages: [{ text: 'Fica', sentAt: new Date('2027-02-01T00:00:00Z') }] });
    const removed = await conversations.chat({ seller: ana, messages: [{ text: 'Sai', sentAt: new Date('2027-02-02T00:00:00Z') }] });
    await refresher.refreshAll();
    const repository = app.get(ConversationsRepository);
    const { documents, gone } = await asCaller(async () => {
      const query = Object.assign(new ListConversationsQuery(), { limit: 100, ids: [kept.publicId, removed.publicId] });
      const rows = await repository.listPage(CHAT_CHANNEL.tables, company.id, query, null, 101, storedColumns(CHAT_CHANNEL, ['messages']));
      expect(rows.map((r) => [r.public_id, r.document !== null, r.live])).toEqual([
        [kept.publicId, true, null],
        [removed.publicId, true, null],
      ]);
      // Committed by another connection: the list's next statement (READ COMMITTED) no longer sees it.
      await owner.query('DELETE FROM chat_conversations WHERE id = $1', [removed.id]);
      return service.documents(CHAT_CHANNEL as never, rows, ['messages'], Infinity);
    });
    expect([...gone]).toEqual([removed.id]);
    expect(documents.map((d) => d.id)).toEqual([kept.publicId]);
    expect(JSON.parse(documents[0].text).included.messages.map((m: Json) => m.text)).toEqual(['Fica']);
  });

  it('never pairs a document with messages of another version: a row written again since the page was read is rendered live', async () => {
    await refresher.refreshAll();
    const repository = app.get(ConversationsRepository);
    const { documents, gone } = await asCaller(async () => {
      const query = Object.assign(new ListConversationsQuery(), { limit: 100, ids: [chat.publicId] });
      const rows = await repository.listPage(CHAT_CHANNEL.tables, company.id, query, null, 101, storedColumns(CHAT_CHANNEL, ['messages']));
      expect(rows[0].version).toEqual(expect.any(String));
      // Another connection writes the row again (as a refresher would after a write): same format, other messages.
      await owner.query(`UPDATE conversation_documents SET messages = '[]' WHERE channel = 'chat' AND conversation_id = $1`, [chat.id]);
      return service.documents(CHAT_CHANNEL as never, rows, ['messages'], Infinity);
    });
    expect(gone.size).toBe(0);
    const served = JSON.parse(documents[0].text);
    expect(served.included.messages.length).toBeGreaterThan(0); // live, not the '[]' of the other version
    // The row left with '[]' shows what the tables do not: emptied, the detail renders live, as the page did.
    await owner.query(
      `UPDATE conversation_documents SET document = NULL, messages = NULL, format = NULL WHERE channel = 'chat' AND conversation_id = $1`,
      [chat.id],
    );
    expect(documents[0].text).toBe(await read(CHAT_CHANNEL, chat.publicId));
    await refresher.refreshAll();
  });

  it('a page reads the live columns of the conversations without a current document in its own statement', async () => {
    const fresh = await conversations.chat({ seller: ana, messages: [{ text: 'Nova', sentAt: new Date('2027-03-01T00:00:00Z') }] });
    const rows = await asCaller(() => {
      const query = Object.assign(new ListConversationsQuery(), { limit: 100, ids: [fresh.publicId, chat.publicId] });
      return app.get(ConversationsRepository).listPage(CHAT_CHANNEL.tables, company.id, query, null, 101, storedColumns(CHAT_CHANNEL, []));
    });
    const byId = new Map(rows.map((r) => [r.public_id, r]));
    expect(byId.get(fresh.publicId)).toMatchObject({ document: null, live: { public_id: fresh.publicId, contact_name: 'Cliente' } });
    expect(byId.get(chat.publicId)).toMatchObject({ document: expect.any(String), live: null });
  });

  it('removes the documents of conversations gone while the capture was off, adds missing ones, and leaves nothing waiting', async () => {
    await owner.query(`INSERT INTO conversation_documents (channel, conversation_id, company_id) VALUES ('email', 999999999, $1)`, [
      company.id,
    ]);
    await owner.query(`DELETE FROM conversation_documents WHERE channel = 'chat' AND conversation_id = $1`, [chat.id]);
    expect(await refresher.addMissing()).toBeGreaterThanOrEqual(1);
    const run = await refresher.refreshAll();
    expect(run.removed).toBeGreaterThanOrEqual(1);
    expect(await owner.query(`SELECT 1 FROM conversation_documents WHERE conversation_id = 999999999`)).toEqual([]);
    expect((await stored('chat', chat)).format).toBe(CHAT_CHANNEL.documentFormat);
    expect(await refresher.waiting()).toBe(0);
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
