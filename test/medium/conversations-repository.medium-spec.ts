import { NestExpressApplication } from '@nestjs/platform-express';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource } from 'typeorm';
import { CHAT_TABLES, ChatConversationRow, ChatMessageRow } from '../../src/chat/chat.sql';
import { TimeIdPosition } from '../../src/common/cursors/keyset-page';
import { Company } from '../../src/companies/company.entity';
import { ConversationTables } from '../../src/conversations/conversation.sql';
import { ConversationsRepository, MessageRowBase, PositionedRow } from '../../src/conversations/conversations.repository';
import { ListConversationsQuery } from '../../src/conversations/list-conversations.query';
import { EMAIL_TABLES } from '../../src/emails/email.sql';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { asTenant, comparePositions, expectStrictlyIncreasing, walkRepository } from '../support/repository-pages';
import { createTestApp, ownerDataSource } from '../support/test-app';

/**
 * ConversationsRepository over the email and the chat tables against the
 * real database, called as the conversation services call them: inside the company's tenant
 * transaction. The list's filters (`last_message_after/before`, exclusive, to the microsecond);
 * the keyset orders `(last_message_at, id)` of conversations and `(sent_at, id)` of a
 * conversation's messages, across full traversals with ties; and deletion as the schema
 * represents it: chats and chat messages are marked (`deleted_at`, `deleted_reason`) and stay,
 * the message content withheld; email has no such mark, a row removed is gone.
 */

const at = (from: string, seconds: number) => new Date(Date.parse(from) + seconds * 1000);
/** A timestamp as the repositories write it: RFC 3339 UTC with six fractional digits. */
const iso = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

/** The query of `GET /v1/emails|chat?…` as the validation pipe builds it from the query string. */
function query(params: Record<string, string> = {}): ListConversationsQuery {
  const q = plainToInstance(ListConversationsQuery, params);
  expect(validateSync(q)).toEqual([]);
  return q;
}

/** Read model columns no document matches: every row as rendered live. */
const NO_STORED = { format: 0, messages: false };

/** `rows`, in their order, as ConversationsRepository.byIds reads them for a live rendering. */
async function liveRows<C extends PositionedRow>(tables: ConversationTables, companyId: string, rows: PositionedRow[]): Promise<C[]> {
  const live = await app.get(ConversationsRepository).byIds<C>(tables, companyId, rows.map((r) => r.id));
  return rows.map((r) => live.find((l) => l.id === r.id)!);
}

/** The repository's four reads over one channel's tables, as the conversation service calls them. */
function readsOf<C extends PositionedRow, M extends MessageRowBase>(tables: ConversationTables) {
  const repository = () => app.get(ConversationsRepository);
  return {
    // The page's rows (no stored document: format 0 is no one's), then their columns as a live rendering reads them.
    listPage: async (companyId: string, q: ListConversationsQuery, after: TimeIdPosition | null, take: number) =>
      liveRows<C>(tables, companyId, await repository().listPage(tables, companyId, q, after, take, NO_STORED)),
    findOne: async (companyId: string, publicId: string) => {
      const row = await repository().findOne(tables, companyId, publicId, NO_STORED);
      return row && (await liveRows<C>(tables, companyId, [row]))[0];
    },
    messagesPage: (companyId: string, conversation: string, after: TimeIdPosition | null, take: number) =>
      repository().messagesPage<M>(tables, companyId, conversation, after, take),
    findMessage: (companyId: string, conversation: string, message: string) =>
      repository().findMessage<M>(tables, companyId, conversation, message),
  };
}

type AnyReads = ReturnType<typeof readsOf<PositionedRow & { public_id: string }, MessageRowBase>>;

interface Channel {
  name: 'email' | 'chat';
  repository: () => AnyReads;
  conversations: string;
  messages: string;
  /** A conversation whose messages were sent at `times` (in that order of arrival). */
  make(f: ConversationsFactory, seller: UserRef, times: Date[]): Promise<Ref>;
  bulk(f: ConversationsFactory, seller: UserRef, count: number, from: Date, sameInstant?: boolean): Promise<void>;
}

let owner: DataSource;
let app: NestExpressApplication;

beforeAll(async () => {
  [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
});
afterAll(() => Promise.all([owner.destroy(), app.close()]));

/** A company with one seller (whose mailbox is the seller's address), and a conversations factory for it. */
async function tenant(): Promise<{ company: Company; f: ConversationsFactory; seller: UserRef }> {
  const company = await createCompany(owner);
  const seller = await new RecordingsFactory(owner, company.id).user();
  return { company, f: new ConversationsFactory(owner, company.id), seller };
}

const mailboxes = new Map<string, Promise<{ id: string; address: string }>>();
const mailboxOf = (f: ConversationsFactory, seller: UserRef) => {
  if (!mailboxes.has(seller.id)) mailboxes.set(seller.id, f.mailbox(seller));
  return mailboxes.get(seller.id)!;
};

const CHANNELS: Channel[] = [
  {
    name: 'email',
    repository: () => readsOf(EMAIL_TABLES),
    conversations: 'email_conversations',
    messages: 'email_messages',
    async make(f, seller, times) {
      const mailbox = await mailboxOf(f, seller);
      const first = await f.email({ mailbox, sentAt: times[0] });
      for (const sentAt of times.slice(1)) await f.email({ mailbox, sentAt, references: first.messageId });
      return first.conversation;
    },
    async bulk(f, seller, count, from, sameInstant = false) {
      await f.bulkEmails(count, await mailboxOf(f, seller), from, { sameInstant });
    },
  },
  {
    name: 'chat',
    repository: () => readsOf(CHAT_TABLES),
    conversations: 'chat_conversations',
    messages: 'chat_messages',
    make: (f, seller, times) => f.chat({ seller, messages: times.map((sentAt) => ({ sentAt })) }),
    bulk: (f, seller, count, from, sameInstant = false) => f.bulkChats(count, seller, from, { sameInstant }),
  },
];

const conversationPosition = (r: PositionedRow): TimeIdPosition => [r.position_micros, r.id];
const messagePosition = (m: MessageRowBase): TimeIdPosition => [m.position_micros, m.id];
const ids = (rows: Array<{ public_id: string }>) => rows.map((r) => r.public_id);

/** Rows of `table` matching `where`, as stored, in keyset order sorted here (not by SQL). */
async function storedInOrder(
  table: string,
  time: string,
  where: string,
  params: unknown[],
): Promise<Array<{ publicId: string; position: TimeIdPosition }>> {
  const rows: Array<{ public_id: string; micros: string; id: string }> = await owner.query(
    `SELECT public_id, (extract(epoch FROM ${time}) * 1000000)::bigint::text AS micros, id::text FROM ${table} WHERE ${where}`,
    params,
  );
  return rows
    .map((r) => ({ publicId: r.public_id, position: [r.micros, r.id] as TimeIdPosition }))
    .sort((a, b) => comparePositions(a.position, b.position));
}

describe.each(CHANNELS)('$name repository', (channel) => {
  const repo = () => channel.repository();
  const list = (company: Company, q: ListConversationsQuery, after: TimeIdPosition | null = null, take = 101) =>
    asTenant(app, company.id, () => repo().listPage(company.id, q, after, take));
  const messages = (company: Company, conversation: string, after: TimeIdPosition | null = null, take = 101) =>
    asTenant(app, company.id, () => repo().messagesPage(company.id, conversation, after, take));

  describe('filters', () => {
    const T0 = '2026-03-01T00:00:00Z';
    let company: Company;
    /** Conversation i's last message at T0 + i × 10 minutes; `long` began a day earlier and last spoke at T0 + 35 min. */
    let made: Array<{ ref: Ref; last: number }>;

    beforeAll(async () => {
      const t = await tenant();
      company = t.company;
      made = [];
      for (let i = 0; i < 8; i++) {
        const last = i * 10;
        // Some with earlier messages: the filters are on the latest one.
        const times = i % 3 === 0 ? [at(T0, last * 60 - 7200), at(T0, last * 60)] : [at(T0, last * 60)];
        made.push({ ref: await channel.make(t.f, t.seller, times), last });
      }
      made.push({ ref: await channel.make(t.f, t.seller, [at(T0, -86_400), at(T0, 35 * 60)]), last: 35 });
      made.sort((a, b) => a.last - b.last);
      // Another company's conversations at the same instants: never in these lists.
      const other = await tenant();
      for (let i = 0; i < 8; i += 2) await channel.make(other.f, other.seller, [at(T0, i * 600)]);
    });

    const expected = (keep: (last: number) => boolean) => made.filter((m) => keep(m.last)).map((m) => m.ref.publicId);

    it('without a filter: every conversation of the company, in last_message_at order', async () => {
      expect(ids(await list(company, query()))).toEqual(expected(() => true));
    });

    it.each<[string, Record<string, string>, (last: number) => boolean]>([
      [
        'last_message_after (exclusive: not the conversation whose last message is at the bound)',
        { last_message_after: '2026-03-01T00:30:00Z' },
        (l) => l > 30,
      ],
      ['last_message_after one microsecond before a last message', { last_message_after: '2026-03-01T00:29:59.999999Z' }, (l) => l >= 30],
      ['last_message_after with an offset', { last_message_after: '2026-02-28T21:30:00-03:00' }, (l) => l > 30],
      ['last_message_before (exclusive)', { last_message_before: '2026-03-01T00:30:00Z' }, (l) => l < 30],
      ['last_message_before one microsecond after a last message', { last_message_before: '2026-03-01T00:30:00.000001Z' }, (l) => l <= 30],
      [
        'last_message_after and last_message_before (a conversation begun before the range is in it by its last message)',
        { last_message_after: '2026-03-01T00:20:00Z', last_message_before: '2026-03-01T01:00:00Z' },
        (l) => l > 20 && l < 60,
      ],
      ['a range nothing is in', { last_message_after: '2026-03-01T00:31:00Z', last_message_before: '2026-03-01T00:34:00Z' }, () => false],
    ])('%s', async (_name, params, keep) => {
      expect(ids(await list(company, query(params)))).toEqual(expected(keep));
    });

    it('answers at most `take` rows, the first ones (the fetch size is rounded up, the page is not)', async () => {
      const all = ids(await list(company, query()));
      for (const take of [1, 2, 3, 8, 9]) expect(ids(await list(company, query(), null, take))).toEqual(all.slice(0, take));
    });
  });

  describe('keyset order of the list', () => {
    const T1 = '2026-04-01T00:00:00Z';
    let company: Company;
    let stored: Array<{ publicId: string; position: TimeIdPosition }>;

    beforeAll(async () => {
      const t = await tenant();
      company = t.company;
      await channel.bulk(t.f, t.seller, 30, new Date(T1)); // one second apart: T1 … T1 + 29 s
      await channel.bulk(t.f, t.seller, 20, at(T1, 10), true); // 20 more at T1 + 10 s: a run of 21 ties
      stored = await storedInOrder(channel.conversations, 'last_message_at', 'company_id = $1', [company.id]);
    });

    const walk = (params: Record<string, string>, limits: number[]) =>
      walkRepository((after, take) => list(company, query(params), after, take), conversationPosition, limits);

    it.each([[[1]], [[3]], [[7, 1, 100, 2]], [[100]]])(
      'reads every conversation exactly once, in (last_message_at, id) order, page after page (limits %j)',
      async (limits) => {
        expect(stored).toHaveLength(50);
        const { items, pages } = await walk({}, limits);
        expect(ids(items)).toEqual(stored.map((s) => s.publicId));
        expectStrictlyIncreasing(items.map(conversationPosition));
        if (limits.length === 1) expect(pages).toHaveLength(Math.ceil(stored.length / limits[0]));
      },
    );

    it('breaks ties on last_message_at by id, also where a page ends inside the run of ties', async () => {
      const tieTime = stored[10].position[0];
      const run = stored.filter((s) => s.position[0] === tieTime);
      expect(run).toHaveLength(21);
      const { items, pages } = await walk({}, [4]);
      expect(pages.filter((p) => conversationPosition(p[p.length - 1])[0] === tieTime).length).toBeGreaterThanOrEqual(4);
      expect(ids(items.filter((r) => r.position_micros === tieTime))).toEqual(run.map((s) => s.publicId));
    });

    it('keeps the order and the filter across pages', async () => {
      const bound = BigInt(Date.parse(T1) + 5000) * 1000n;
      const { items } = await walk({ last_message_after: '2026-04-01T00:00:05Z', last_message_before: '2026-04-01T00:00:20Z' }, [3]);
      const want = stored.filter((s) => BigInt(s.position[0]) > bound && BigInt(s.position[0]) < bound + 15_000_000n);
      expect(want.length).toBeGreaterThan(20);
      expect(ids(items)).toEqual(want.map((s) => s.publicId));
    });

    it('reads nothing after the last position', async () => {
      expect(await list(company, query(), stored[stored.length - 1].position)).toEqual([]);
    });
  });

  describe("keyset order of a conversation's messages", () => {
    const T2 = '2026-05-01T00:00:00Z';
    let company: Company;
    let conversation: Ref;
    let stored: Array<{ publicId: string; position: TimeIdPosition }>;

    beforeAll(async () => {
      const t = await tenant();
      company = t.company;
      conversation = await channel.make(t.f, t.seller, [at(T2, 0)]);
      await t.f.bulkMessages(channel.name, conversation, 15, at(T2, 60)); // one second apart
      await t.f.bulkMessages(channel.name, conversation, 12, at(T2, 65), { sameInstant: true }); // 12 ties with the 6th
      // Another conversation's messages at the same instants: never in these pages.
      const neighbour = await channel.make(t.f, t.seller, [at(T2, 0)]);
      await t.f.bulkMessages(channel.name, neighbour, 15, at(T2, 60));
      stored = await storedInOrder(channel.messages, 'sent_at', 'conversation_id = $1', [conversation.id]);
    });

    it.each([[[1]], [[4]], [[5, 1, 100]], [[100]]])(
      'reads every message exactly once, in (sent_at, id) order, page after page (limits %j)',
      async (limits) => {
        expect(stored).toHaveLength(28);
        const { items } = await walkRepository(
          async (after, take) => (await messages(company, conversation.publicId, after, take))!,
          messagePosition,
          limits,
        );
        expect(ids(items)).toEqual(stored.map((s) => s.publicId));
        expectStrictlyIncreasing(items.map(messagePosition));
        expect(new Set(items.map((m) => m.conversation_public_id))).toEqual(new Set([conversation.publicId]));
      },
    );

    it('breaks ties on sent_at by id across a page boundary', async () => {
      const tieTime = stored[6].position[0];
      const run = stored.filter((s) => s.position[0] === tieTime);
      expect(run).toHaveLength(13);
      const first = (await messages(company, conversation.publicId, null, 10))!;
      const rest = (await messages(company, conversation.publicId, messagePosition(first[8]), 101))!;
      expect([...ids(first.slice(0, 9)), ...ids(rest)]).toEqual(stored.map((s) => s.publicId));
      expect(first[8].position_micros).toBe(tieTime); // the page ended inside the run
    });

    it('answers an empty page after the last message, and null for a conversation the company does not have', async () => {
      expect(await messages(company, conversation.publicId, stored[stored.length - 1].position)).toEqual([]);
      expect(await messages(company, `${conversation.publicId.slice(0, -4)}zzzz`)).toBeNull();
      const other = await tenant();
      expect(
        await asTenant(app, other.company.id, () => repo().messagesPage(other.company.id, conversation.publicId, null, 10)),
      ).toBeNull();
    });
  });

  describe('a message by id', () => {
    const T4 = '2026-05-15T00:00:00Z';
    let t: Awaited<ReturnType<typeof tenant>>;
    let conversation: Ref;
    let neighbour: Ref;
    const page = async (of: Ref) => (await messages(t.company, of.publicId))!;
    const one = (company: Company, conversation: string, message: string) =>
      asTenant(app, company.id, () => repo().findMessage(company.id, conversation, message));

    beforeAll(async () => {
      t = await tenant();
      conversation = await channel.make(t.f, t.seller, [at(T4, 0), at(T4, 60), at(T4, 120)]);
      neighbour = await channel.make(t.f, t.seller, [at(T4, 30)]);
    });

    it('reads each message as its page holds it, row for row', async () => {
      const rows = await page(conversation);
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(await one(t.company, conversation.publicId, row.public_id)).toEqual(row);
    });

    it("reads null for a message under another of the company's conversations, of another company, or absent", async () => {
      const [mine] = await page(conversation);
      const [theirs] = await page(neighbour);
      expect(await one(t.company, neighbour.publicId, mine.public_id)).toBeNull();
      expect(await one(t.company, conversation.publicId, theirs.public_id)).toBeNull();
      expect(await one(t.company, conversation.publicId, `${mine.public_id.slice(0, -4)}zzzz`)).toBeNull();
      const other = await tenant();
      expect(await one(other.company, conversation.publicId, mine.public_id)).toBeNull();
    });
  });

  describe('a conversation removed (rows deleted, not marked)', () => {
    it('leaves every read, and a position on it still continues the walk without a skip', async () => {
      const t = await tenant();
      await channel.bulk(t.f, t.seller, 10, new Date('2026-06-01T00:00:00Z'));
      const all = await list(t.company, query());
      expect(all).toHaveLength(10);
      const after = conversationPosition(all[3]);
      const removed = [all[3], all[4]];
      // Its messages, participants, mailboxes and accounts go with it (ON DELETE CASCADE).
      await owner.query(`DELETE FROM ${channel.conversations} WHERE id = ANY($1::bigint[])`, [removed.map((r) => r.id)]);

      expect(ids(await list(t.company, query(), after))).toEqual(ids(all.slice(5)));
      expect(ids(await list(t.company, query()))).toEqual(ids([...all.slice(0, 3), ...all.slice(5)]));
      for (const r of removed) {
        expect(await asTenant(app, t.company.id, () => repo().findOne(t.company.id, r.public_id))).toBeNull();
        expect(await messages(t.company, r.public_id)).toBeNull();
        const [left] = await owner.query(`SELECT count(*)::int AS n FROM ${channel.messages} WHERE conversation_id = $1`, [r.id]);
        expect(left.n).toBe(0);
      }
    });
  });
});

describe('email has no tombstone', () => {
  it('no email table has a column that marks a row deleted: a conversation or message is there, or removed', async () => {
    const columns: Array<{ table_name: string; column_name: string }> = await owner.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name LIKE 'email%' AND column_name ~ 'delet|remov|revok'`,
    );
    expect(columns).toEqual([]);
  });
});

describe('chat tombstones', () => {
  const T3 = '2026-07-01T00:00:00Z';
  let company: Company;
  let f: ConversationsFactory;
  let chats: Ref[];
  let chat: Ref & { messages: Ref[] };
  let before: ChatMessageRow[];
  const chatReads = readsOf<ChatConversationRow, ChatMessageRow>(CHAT_TABLES);
  const read = <T>(work: (r: typeof chatReads) => Promise<T>) => asTenant(app, company.id, () => work(chatReads));
  const messagesOf = async () => (await read((r) => r.messagesPage(company.id, chat.publicId, null, 101)))!;
  const revokedAt = at(T3, 3600);

  beforeAll(async () => {
    const t = await tenant();
    [company, f] = [t.company, t.f];
    const make = (minutes: number) => f.chat({ seller: t.seller, messages: [{ sentAt: at(T3, minutes * 60) }] });
    chat = await f.chat({
      seller: t.seller,
      messages: [
        { sentAt: at(T3, 600), text: 'Bom dia' },
        { sentAt: at(T3, 660), direction: 'outbound', text: 'Olá! Segue a proposta.' },
        {
          sentAt: at(T3, 720),
          type: 'audio',
          text: null,
          media: { file_name: null, mime_type: 'audio/ogg', size_bytes: 2048 },
          transcription: 'Podemos fechar na sexta.',
        },
        { sentAt: at(T3, 780), text: 'Fechado então' },
      ],
    });
    chats = [await make(5), chat, await make(20)]; // chat's last message at 13 min: between the two
    before = await messagesOf();
    expect(before.map((m) => m.text)).toEqual(['Bom dia', 'Olá! Segue a proposta.', null, 'Fechado então']);
    expect(before[2]).toMatchObject({ transcription: 'Podemos fechar na sexta.', media: { mime_type: 'audio/ogg', size_bytes: 2048 } });
    // Revoked for everyone: the audio and the latest message; edited: the second.
    await f.deleteChatMessage(chat.messages[2], 'revoked_for_everyone', revokedAt);
    await f.deleteChatMessage(chat.messages[3], 'revoked_for_everyone', revokedAt);
    await f.editChatMessage(chat.messages[1], 'Olá! Segue a proposta revisada.', at(T3, 7200));
  });

  it('keeps a message deleted for everyone in its place, marked, with every content field withheld by the statement', async () => {
    const after = await messagesOf();
    expect(ids(after)).toEqual(ids(before));
    for (const i of [2, 3]) {
      expect(after[i]).toEqual({
        ...before[i],
        text: null,
        media: null,
        transcription: null,
        deleted_at: iso(revokedAt),
        deleted_reason: 'revoked_for_everyone',
      });
    }
    // The content is still stored; only the read withholds it.
    const [stored] = await owner.query('SELECT text, transcription FROM chat_messages WHERE id = $1', [chat.messages[3].id]);
    expect(stored).toEqual({ text: 'Fechado então', transcription: null });
  });

  it("withholds a tombstone's content in the statement that reads it by id too, and shows an edit there as in its page", async () => {
    const after = await messagesOf();
    for (const i of [1, 2, 3]) {
      expect(await read((r) => r.findMessage(company.id, chat.publicId, chat.messages[i].publicId))).toEqual(after[i]);
    }
    expect(after[2]).toMatchObject({ text: null, media: null, transcription: null, deleted_reason: 'revoked_for_everyone' });
  });

  it('shows an edited message with its current text and edited_at, unmarked; the other messages as they were', async () => {
    const after = await messagesOf();
    expect(after[1]).toEqual({ ...before[1], text: 'Olá! Segue a proposta revisada.', edited_at: iso(at(T3, 7200)) });
    expect(after[0]).toEqual(before[0]);
  });

  it('does not move the conversation: last_message_at and the list position stay those of the latest message, deleted or not', async () => {
    const row = (await read((r) => r.findOne(company.id, chat.publicId)))!;
    expect(row.last_message_at).toBe(iso(at(T3, 780)));
    expect(ids(await read((r) => r.listPage(company.id, query(), null, 101)))).toEqual(chats.map((c) => c.publicId));
  });

  it('keeps a deleted chat in the list, at its place and under its filters, and answers it and its messages, marked', async () => {
    const deletedAt = at(T3, 10_800);
    await f.deleteChat(chat, 'deleted_by_seller', deletedAt);
    const listed = await read((r) => r.listPage(company.id, query(), null, 101));
    expect(ids(listed)).toEqual(chats.map((c) => c.publicId));
    expect(listed.map((c) => [c.deleted_at, c.deleted_reason])).toEqual([
      [null, null],
      [iso(deletedAt), 'deleted_by_seller'],
      [null, null],
    ]);
    const filtered = await read((r) => r.listPage(company.id, query({ last_message_after: '2026-07-01T00:12:59Z' }), null, 101));
    expect(ids(filtered)).toEqual([chat.publicId, chats[2].publicId]);
    expect(await read((r) => r.findOne(company.id, chat.publicId))).toMatchObject({
      public_id: chat.publicId,
      last_message_at: iso(at(T3, 780)),
      deleted_at: iso(deletedAt),
      deleted_reason: 'deleted_by_seller',
    });
    expect(ids(await messagesOf())).toEqual(ids(before));
  });
});
