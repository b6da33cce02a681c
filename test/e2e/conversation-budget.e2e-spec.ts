import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ChatRef } from '../../src/seeding/conversations.factory';
import { ConversationsRepository } from '../../src/conversations/conversations.repository';
import { runCli } from '../support/cli';
import { createTenant, Tenant } from '../support/tenant';
import { createTestApp, ownerDataSource } from '../support/test-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const BUDGET = 32 * 1024;
const MESSAGES = 20_000;

const rawBody = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('include=messages: one conversation within the byte budget (messages_next_cursor)', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let t: Tenant;
  let big: ChatRef;
  let small: ChatRef;
  /** The big chat's message ids in the messages route's order, from the database. */
  let order: string[];

  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${t.token}`);
  const bytes = (item: unknown) => Buffer.byteLength(JSON.stringify(item));

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { PAGE_BYTES_MAX: String(BUDGET) } })]);
    http = request(app.getHttpServer());
    t = await createTenant(db, http, ['chat.read', 'chat.content.read']);
    small = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: new Date('2026-01-01T00:00:00Z') }, { sentAt: new Date('2026-01-01T00:01:00Z') }] });
    big = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: new Date('2026-01-02T00:00:00Z'), text: 'Primeira' }] });
    // One statement for the rest (about 1.5 s); a tenth of them at the same instant, so the order's tie-break (id) is walked too.
    await t.conversations.bulkMessages('chat', big, MESSAGES - 1 - 2000, new Date('2026-01-02T00:00:01Z'));
    await t.conversations.bulkMessages('chat', big, 2000, new Date('2026-01-03T00:00:00Z'), { sameInstant: true });
    order = (
      await db.query('SELECT public_id FROM chat_messages WHERE conversation_id = $1 ORDER BY sent_at, id', [big.id])
    ).map((r: { public_id: string }) => r.public_id);
    expect(order).toHaveLength(MESSAGES);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  /** The embedded messages are the first ones, and the cursor's first page continues right after them. */
  async function continuesExactly(conversation: Json): Promise<void> {
    const { messages, messages_next_cursor: cursor } = conversation.included;
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.length).toBeLessThan(MESSAGES);
    expect(messages.map((m: Json) => m.id)).toEqual(order.slice(0, messages.length));
    expect(messages[0]).toEqual((await get(`/v1/chat/${big.publicId}/messages?limit=1`).expect(200)).body.data[0]);
    expect(cursor).toEqual(expect.any(String));
    const next = await get(`/v1/chat/${big.publicId}/messages?limit=100&cursor=${cursor}`).expect(200);
    // That page is cut by the same budget: it continues right after the last message embedded.
    expect(next.body.data.length).toBeGreaterThanOrEqual(1);
    expect(next.body.data.map((m: Json) => m.id)).toEqual(order.slice(messages.length, messages.length + next.body.data.length));
  }

  describe.each(['rendered live', 'stored by the read model'])('%s', (how) => {
    beforeAll(async () => {
      if (how === 'rendered live') {
        await db.query('UPDATE conversation_documents SET document = NULL, messages = NULL, format = NULL WHERE company_id = $1', [t.company.id]);
      } else {
        expect((await runCli({}, 'documents:refresh', '--json')).code).toBe(0);
        const [{ n }] = await db.query('SELECT count(*)::int AS n FROM conversation_documents WHERE company_id = $1 AND document IS NOT NULL', [
          t.company.id,
        ]);
        expect(n).toBe(2);
      }
    }, 60_000);

    it('the detail route carries the first messages within the budget and a cursor its messages route continues, no gap, no repeat', async () => {
      const res = await get(`/v1/chat/${big.publicId}?include=messages`).expect(200);
      expect(bytes(res.body.data)).toBeLessThanOrEqual(BUDGET);
      await continuesExactly(res.body.data);
    });

    it('the list by ids: the small chat whole (messages_next_cursor null), the big one within what is left of the page', async () => {
      const res = await get(`/v1/chat?ids=${big.publicId},${small.publicId}&include=messages`).expect(200);
      const [first, second] = res.body.data;
      expect([first.id, second.id]).toEqual([small.publicId, big.publicId]);
      expect(first.included).toEqual({ messages: expect.any(Array), messages_next_cursor: null });
      expect(first.included.messages).toHaveLength(2);
      expect(res.body.data.reduce((n: number, item: Json) => n + bytes(item) + 1, 0)).toBeLessThanOrEqual(BUDGET);
      await continuesExactly(second);
    });

    it('each export line is bounded the same way, and a large conversation is never read whole', async () => {
      const repository = app.get(ConversationsRepository);
      const reads: number[] = [];
      const spy = jest.spyOn(repository, 'messagesAfter').mockImplementation(async function (this: ConversationsRepository, ...args) {
        const rows = await ConversationsRepository.prototype.messagesAfter.apply(this, args);
        reads.push(rows.length);
        return rows as never;
      });
      let body: Buffer;
      try {
        body = (await get('/v1/export?types=chat&include=messages').buffer(true).parse(rawBody).expect(200)).body as Buffer;
      } finally {
        spy.mockRestore();
      }
      const text = body.toString('utf8').trimEnd().split('\n');
      for (const line of text.slice(0, -1)) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(BUDGET);
      const lines = text.map((l) => JSON.parse(l) as Json);
      const line = lines.find((l) => l.id === big.publicId)!;
      await continuesExactly(line);
      expect(lines.find((l) => l.id === small.publicId)!.included.messages_next_cursor).toBeNull();
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(MESSAGES / 10);
    });
  });

  it('following the cursor through the messages route yields every message exactly once, in order', async () => {
    const { included } = (await get(`/v1/chat/${big.publicId}?include=messages`).expect(200)).body.data;
    const ids: string[] = included.messages.map((m: Json) => m.id);
    let cursor: string | null = included.messages_next_cursor;
    while (cursor) {
      const page = await get(`/v1/chat/${big.publicId}/messages?limit=100&cursor=${cursor}`).expect(200);
      ids.push(...page.body.data.map((m: Json) => m.id));
      cursor = page.body.pagination.next_cursor;
    }
    expect(ids).toEqual(order);
  }, 60_000);
});
