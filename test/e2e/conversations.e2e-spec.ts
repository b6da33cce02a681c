import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { Scope } from '../../src/contract/scopes';
import { ConversationsFactory, MailboxRef } from '../../src/seeding/conversations.factory';
import { Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createClient, tokenFor } from '../support/credentials';
import { createTenant, Tenant } from '../support/tenant';
import { OpenApiResponses } from '../support/openapi-responses';
import { expectError, traverse } from '../support/http';
import { rateLimitOf } from '../support/rate-limit-headers';
import { createTestApp, ownerDataSource } from '../support/test-app';

const ALL: Scope[] = ['emails.read', 'emails.content.read', 'chat.read', 'chat.content.read', 'meetings.read'];

const minutes = (from: Date, n: number) => new Date(from.getTime() + n * 60_000);
const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** What the shared tests need to know of a channel. */
interface Channel {
  name: 'email' | 'chat';
  path: '/v1/emails' | '/v1/chat';
  template: string;
  prefix: string;
  messagePrefix: string;
  otherPath: string;
  scope: Scope;
  contentScope: Scope;
  contentPolicy: 'email_content' | 'chat_content';
  /** A conversation of `count` messages a minute apart, the last at `lastAt`. */
  make(t: Tenant, lastAt: Date, count?: number): Promise<Ref>;
}

const CHANNELS: Channel[] = [
  {
    name: 'email',
    path: '/v1/emails',
    template: '/v1/emails/{email_id}',
    prefix: 'eml_',
    messagePrefix: 'emsg_',
    otherPath: '/v1/chat',
    scope: 'emails.read',
    contentScope: 'emails.content.read',
    contentPolicy: 'email_content',
    make: async (t, lastAt, count = 1) => (await t.conversations.thread(t.mailbox, count, minutes(lastAt, 1 - count))).conversation,
  },
  {
    name: 'chat',
    path: '/v1/chat',
    template: '/v1/chat/{chat_id}',
    prefix: 'wa_',
    messagePrefix: 'wamsg_',
    otherPath: '/v1/emails',
    scope: 'chat.read',
    contentScope: 'chat.content.read',
    contentPolicy: 'chat_content',
    make: (t, lastAt, count = 1) =>
      t.conversations.chat({
        seller: t.seller,
        messages: Array.from({ length: count }, (_, i) => ({
          sentAt: minutes(lastAt, i + 1 - count),
          direction: i % 2 ? 'outbound' : 'inbound',
        })),
      }),
  },
];

describe('email and chat conversations', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let openapi: OpenApiResponses;
  let a: Tenant;
  let b: Tenant;

  const tenant = (scopes: Scope[] = ALL): Promise<Tenant> => createTenant(db, http, scopes);

  const get = (t: Tenant | string, url: string) => http.get(url).set('Authorization', `Bearer ${typeof t === 'string' ? t : t.token}`);
  const ids = (res: request.Response) => res.body.data.map((r: { id: string }) => r.id);

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    openapi = await OpenApiResponses.load(http);
    [a, b] = await Promise.all([tenant(), tenant()]);
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  describe.each(CHANNELS)('$path', (c) => {
    describe('list', () => {
      let t: Tenant;
      const base = new Date('2026-04-01T12:00:00.000Z');
      let convs: Ref[];

      beforeAll(async () => {
        t = await tenant();
        // Created in an order unlike their activity: the list follows last_message_at.
        convs = [];
        for (const m of [5, 1, 4, 2, 3]) convs.push(await c.make(t, minutes(base, m * 10), 2));
        await c.make(b, minutes(base, 15));
      });
      const byActivity = () => [convs[1], convs[3], convs[4], convs[2], convs[0]].map((x) => x.publicId);

      it('lists only this company conversations, by last_message_at then id, in the list envelope', async () => {
        const res = await get(t, c.path).expect(200);
        expect(ids(res)).toEqual(byActivity());
        expect(res.body.pagination).toEqual({ limit: 50, has_more: false, next_cursor: null });
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
        expect(openapi.errors(c.path, res)).toEqual([]);
      });

      it.each([
        ['last_message_after (exclusive)', () => `last_message_after=${minutes(base, 20).toISOString()}`, [4, 2, 0]],
        ['last_message_before (exclusive)', () => `last_message_before=${minutes(base, 30).toISOString()}`, [1, 3]],
        [
          'both bounds',
          () => `last_message_after=${minutes(base, 10).toISOString()}&last_message_before=${minutes(base, 50).toISOString()}`,
          [3, 4, 2],
        ],
        ['another offset', () => 'last_message_after=2026-04-01T09:35:00-03:00', [2, 0]],
        ['a window with nothing in it', () => 'last_message_after=2030-01-01T00:00:00Z', []],
      ])('filters by %s', async (_name, query, expected) => {
        const res = await get(t, `${c.path}?${query().replace(/\+/g, '%2B')}`).expect(200);
        expect(ids(res)).toEqual((expected as number[]).map((i) => convs[i].publicId));
      });

      it.each([
        ['limit=0', 'INVALID_LIMIT'],
        ['limit=101', 'INVALID_LIMIT'],
        ['limit=ten', 'INVALID_LIMIT'],
        ['last_message_after=yesterday', 'INVALID_DATETIME'],
        ['last_message_after=2026-04-01T12:00:00', 'INVALID_DATETIME'],
        ['last_message_before=2026-04-01', 'INVALID_DATETIME'],
        ['last_message_after=2026-04-02T00:00:00Z&last_message_before=2026-04-01T00:00:00Z', 'INVALID_FILTER'],
        ['last_message_after=2026-04-01T00:00:00Z&last_message_before=2026-04-01T00:00:00Z', 'INVALID_FILTER'],
        ['last_message_after=2026-04-01T00:00:00Z&last_message_after=2026-04-02T00:00:00Z', 'INVALID_REQUEST'],
        ['last_message_after=', 'INVALID_REQUEST'],
        ['created_after=2026-04-01T00:00:00Z', 'INVALID_REQUEST'],
        ['cursor=cur_garbage', 'INVALID_CURSOR'],
      ])('answers %s with 400 %s', async (query, code) => {
        const res = await get(t, `${c.path}?${query}`);
        expectError(res, 400, code);
        expect(openapi.errors(c.path, res)).toEqual([]);
      });

      it('answers 400 INVALID_REQUEST to any query parameter on the single route', async () => {
        expectError(await get(t, `${c.path}/${convs[0].publicId}?limit=1`), 400, 'INVALID_REQUEST');
      });
    });

    describe('traversal', () => {
      let t: Tenant;
      let expected: string[];

      beforeAll(async () => {
        t = await tenant();
        const f = t.conversations;
        if (c.name === 'email') {
          await f.bulkEmails(180, t.mailbox, new Date('2026-01-01T00:00:00Z'));
          await f.bulkEmails(30, t.mailbox, new Date('2026-02-01T00:00:00Z'), { sameInstant: true });
        } else {
          await f.bulkChats(180, t.seller, new Date('2026-01-01T00:00:00Z'));
          await f.bulkChats(30, t.seller, new Date('2026-02-01T00:00:00Z'), { sameInstant: true });
        }
        const table = c.name === 'email' ? 'email_conversations' : 'chat_conversations';
        expected = (
          await db.query(`SELECT public_id FROM ${table} WHERE company_id = $1 ORDER BY last_message_at, id`, [t.company.id])
        ).map((r: { public_id: string }) => r.public_id);
      });

      it('visits every conversation exactly once, in order, with ties on last_message_at and limits changing between pages', async () => {
        expect(expected).toHaveLength(210);
        expect((await traverse((url) => get(t, url), c.path, [37, 100, 1, 50])).ids).toEqual(expected);
      });

      it('sees a conversation again, never skips it, when its last_message_at moves forward during a traversal', async () => {
        const u = await tenant();
        const start = new Date('2026-05-01T00:00:00Z');
        const convs: Ref[] = [];
        for (let i = 0; i < 6; i++) convs.push(await c.make(u, minutes(start, i)));
        const channel = c.name;
        const { ids: seen } = await traverse(
          (url) => get(u, url),
          c.path,
          [2],
          async (page) => {
            // After page 1: a conversation already seen and one not yet reached both receive a message.
            if (page === 0) {
              await u.conversations.bulkMessages(channel, convs[0], 1, minutes(start, 60));
              await u.conversations.bulkMessages(channel, convs[3], 1, minutes(start, 61));
            }
          },
        );
        const order = (x: Ref) => x.publicId;
        expect(seen).toEqual([convs[0], convs[1], convs[2], convs[4], convs[5], convs[0], convs[3]].map(order));
        for (const conv of convs) expect(seen).toContain(conv.publicId);
        const moved = await get(u, `${c.path}/${convs[0].publicId}`).expect(200);
        expect(moved.body.data.last_message_at).toBe('2026-05-01T01:00:00.000000Z');
        const after = await get(u, `${c.path}?last_message_after=2026-05-01T00:30:00Z`).expect(200);
        expect(ids(after)).toEqual([convs[0].publicId, convs[3].publicId]);
      });

      describe('cursors', () => {
        let cursor: string;
        const filter = 'last_message_after=2026-01-01T00:01:00Z';

        beforeAll(async () => {
          cursor = (await get(t, `${c.path}?limit=10&${filter}`).expect(200)).body.pagination.next_cursor;
          expect(cursor).toMatch(/^cur_[A-Za-z0-9_-]+$/);
        });

        it('continues with the same filters and any limit', async () => {
          await get(t, `${c.path}?limit=3&${filter}&cursor=${cursor}`).expect(200);
        });

        it('answers 400 INVALID_CURSOR for an edited cursor', async () => {
          for (const position of [4, 12, cursor.length - 1]) {
            const edited = cursor.slice(0, position) + (cursor[position] === 'A' ? 'B' : 'A') + cursor.slice(position + 1);
            expectError(await get(t, `${c.path}?${filter}&cursor=${edited}`), 400, 'INVALID_CURSOR');
          }
        });

        it('answers 400 INVALID_CURSOR when the filters change, on the other channel, or for another company', async () => {
          expectError(await get(t, `${c.path}?cursor=${cursor}`), 400, 'INVALID_CURSOR');
          expectError(await get(t, `${c.path}?last_message_after=2026-01-01T00:02:00Z&cursor=${cursor}`), 400, 'INVALID_CURSOR');
          expectError(await get(t, `${c.otherPath}?${filter}&cursor=${cursor}`), 400, 'INVALID_CURSOR');
          expectError(await get(a, `${c.path}?${filter}&cursor=${cursor}`), 400, 'INVALID_CURSOR');
        });

        it('reveals no internal id or filter value', async () => {
          const decoded = Buffer.from(cursor.slice(4), 'base64url').toString('latin1');
          expect(decoded).not.toMatch(/\d{4}-\d\d-\d\d/);
          expect(decoded).not.toMatch(/\d{6,}/);
        });
      });
    });

    describe('messages', () => {
      let t: Tenant;
      let conv: Ref;
      let other: Ref;
      let expected: string[];

      beforeAll(async () => {
        t = await tenant();
        conv = await c.make(t, new Date('2026-03-01T10:00:00Z'), 3);
        await t.conversations.bulkMessages(c.name, conv, 120, new Date('2026-03-02T00:00:00Z'));
        await t.conversations.bulkMessages(c.name, conv, 25, new Date('2026-03-03T00:00:00Z'), { sameInstant: true });
        other = await c.make(t, new Date('2026-03-01T11:00:00Z'), 4);
        const table = c.name === 'email' ? 'email_messages' : 'chat_messages';
        expected = (await db.query(`SELECT public_id FROM ${table} WHERE conversation_id = $1 ORDER BY sent_at, id`, [conv.id])).map(
          (r: { public_id: string }) => r.public_id,
        );
      });

      it('lists the messages oldest first, exactly once, across pages with ties on sent_at', async () => {
        expect(expected).toHaveLength(148);
        expect((await traverse((url) => get(t, url), `${c.path}/${conv.publicId}/messages`, [40, 1, 100])).ids).toEqual(expected);
      });

      it('answers in the list envelope, every message naming its conversation, valid against the document', async () => {
        const res = await get(t, `${c.path}/${conv.publicId}/messages?limit=5`).expect(200);
        expect(Object.keys(res.body)).toEqual(['data', 'pagination', 'request_id']);
        expect(res.body.pagination).toEqual({ limit: 5, has_more: true, next_cursor: expect.stringMatching(/^cur_/) });
        for (const m of res.body.data) {
          expect(m).toMatchObject({
            object: `${c.name}_message`,
            conversation_id: conv.publicId,
            sent_at: expect.stringMatching(ISO_MICROS),
          });
        }
        expect(openapi.errors(`${c.template}/messages`, res)).toEqual([]);
      });

      it('answers 400 INVALID_CURSOR for a cursor of another conversation, even of the same company', async () => {
        const cursor = (await get(t, `${c.path}/${conv.publicId}/messages?limit=2`).expect(200)).body.pagination.next_cursor;
        await get(t, `${c.path}/${conv.publicId}/messages?cursor=${cursor}`).expect(200);
        const res = await get(t, `${c.path}/${other.publicId}/messages?limit=2&cursor=${cursor}`);
        expectError(res, 400, 'INVALID_CURSOR');
        expect(openapi.errors(`${c.template}/messages`, res)).toEqual([]);
        expectError(await get(t, `${c.path}?cursor=${cursor}`), 400, 'INVALID_CURSOR');
      });

      it('answers an empty page for a conversation read past its end', async () => {
        const res = await get(t, `${c.path}/${other.publicId}/messages?limit=4`).expect(200);
        expect(res.body.data).toHaveLength(4);
        expect(res.body.pagination).toEqual({ limit: 4, has_more: false, next_cursor: null });
      });

      it.each([
        ['limit=0', 'INVALID_LIMIT'],
        ['limit=500', 'INVALID_LIMIT'],
        ['cursor=nope', 'INVALID_CURSOR'],
        ['last_message_after=2026-01-01T00:00:00Z', 'INVALID_REQUEST'],
        ['limit=1&limit=2', 'INVALID_REQUEST'],
      ])('answers %s with 400 %s', async (query, code) => {
        expectError(await get(t, `${c.path}/${conv.publicId}/messages?${query}`), 400, code);
      });

      it('does not move last_message_at when messages are only read', async () => {
        const before = (await get(t, `${c.path}/${conv.publicId}`).expect(200)).body.data.last_message_at;
        await get(t, `${c.path}/${conv.publicId}/messages`).expect(200);
        expect((await get(t, `${c.path}/${conv.publicId}`).expect(200)).body.data.last_message_at).toBe(before);
      });
    });

    describe('a message by id', () => {
      let t: Tenant;
      let conv: Ref;
      let other: Ref;
      let theirs: Ref;
      /** The messages of `conv`, `other`, company B's `theirs` and a conversation of the other channel, as their lists show them. */
      let listed: Array<{ id: string }>;
      let otherIds: string[];
      let theirIds: string[];
      let otherChannelIds: string[];
      let otherChannelConv: Ref;
      const template = `${c.template}/messages/{message_id}`;
      const one = (conversation: string, message: string) => `${c.path}/${conversation}/messages/${message}`;
      const listOf = async (who: Tenant, path: string, conversation: Ref) =>
        (await get(who, `${path}/${conversation.publicId}/messages`).expect(200)).body.data;

      beforeAll(async () => {
        t = await tenant();
        conv = await c.make(t, new Date('2026-03-10T10:00:00Z'), 3);
        other = await c.make(t, new Date('2026-03-10T11:00:00Z'), 2);
        theirs = await c.make(b, new Date('2026-03-10T10:00:00Z'), 2);
        otherChannelConv = await (CHANNELS.find((x) => x !== c) as Channel).make(t, new Date('2026-03-10T10:00:00Z'), 2);
        listed = await listOf(t, c.path, conv);
        otherIds = (await listOf(t, c.path, other)).map((m: { id: string }) => m.id);
        theirIds = (await listOf(b, c.path, theirs)).map((m: { id: string }) => m.id);
        otherChannelIds = (await listOf(t, c.otherPath, otherChannelConv)).map((m: { id: string }) => m.id);
        expect(listed).toHaveLength(3);
      });

      it('answers each message in the single-object envelope, exactly as the list shows it, valid against the document', async () => {
        for (const message of listed) {
          const res = await get(t, one(conv.publicId, message.id)).expect(200);
          expect(Object.keys(res.body)).toEqual(['data', 'request_id']);
          expect(res.body.data).toEqual(message);
          expect(res.body.data).toMatchObject({ id: expect.stringMatching(`^${c.messagePrefix}`), conversation_id: conv.publicId });
          expect(res.body.request_id).toBe(res.headers['x-request-id']);
          expect(openapi.errors(template, res)).toEqual([]);
        }
      });

      it(`is governed by client, company and ${c.contentPolicy}, as the messages list is`, async () => {
        const res = await get(t, one(conv.publicId, listed[0].id)).expect(200);
        const { policy, state } = rateLimitOf(res);
        expect([...policy.keys()]).toEqual(['client', 'company', c.contentPolicy]);
        expect([...state.keys()]).toEqual(['client', 'company', c.contentPolicy]);
      });

      it('answers 404 identically for an absent, foreign, other-conversation, other-channel or malformed id on either side', async () => {
        const mine = listed[0].id;
        const cases: Array<[string, string]> = [
          [conv.publicId, `${c.messagePrefix}0000000000000000000000`], // no such message
          [`${c.prefix}0000000000000000000000`, mine], // no such conversation
          [conv.publicId, otherIds[0]], // a message of another conversation of the company
          [other.publicId, mine],
          [conv.publicId, theirIds[0]], // company B's message, under my conversation
          [theirs.publicId, theirIds[0]], // company B's message, under its own conversation
          [theirs.publicId, mine],
          [conv.publicId, otherChannelIds[0]], // a message of the other channel
          [otherChannelConv.publicId, mine], // a conversation of the other channel
          [conv.publicId, conv.publicId], // a conversation id as the message id
          [conv.publicId, 'nope'],
          ['nope', mine],
          [conv.publicId, `${c.messagePrefix}${'x'.repeat(300)}`],
          [conv.publicId, encodeURIComponent(`${c.messagePrefix}' OR 1=1 --`)],
          [conv.publicId, mine.slice(0, -1)],
          [conv.publicId, mine.toUpperCase()],
        ];
        const bodies = [];
        for (const [conversation, message] of cases) {
          const res = await get(t, one(conversation, message));
          expect([conversation, message, res.status, res.body.error?.code]).toEqual([conversation, message, 404, 'RESOURCE_NOT_FOUND']);
          expectError(res, 404, 'RESOURCE_NOT_FOUND');
          expect(openapi.errors(template, res)).toEqual([]);
          bodies.push({ ...res.body.error, request_id: undefined });
        }
        expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1);
        // Company B reads its own message where company A was refused it.
        await get(b, one(theirs.publicId, theirIds[0])).expect(200);
      });

      it(`refuses 403 INSUFFICIENT_SCOPE without ${c.contentScope} or without ${c.scope}, before looking the ids up`, async () => {
        for (const scopes of [[c.scope], [c.contentScope]]) {
          const token = await tokenFor(http, await createClient(db, t.company, { scopes }));
          for (const path of [one(conv.publicId, listed[0].id), one('nope', 'nope')]) {
            const res = await get(token, path);
            expectError(res, 403, 'INSUFFICIENT_SCOPE');
            expect(res.headers['www-authenticate']).toContain(`scope="${c.scope} ${c.contentScope}"`);
            expect(openapi.errors(template, res)).toEqual([]);
          }
        }
        const both = await tokenFor(http, await createClient(db, t.company, { scopes: [c.scope, c.contentScope] }));
        await get(both, one(conv.publicId, listed[0].id)).expect(200);
      });

      it.each(['limit=1', 'cursor=cur_x', 'expand=all', 'last_message_after=2026-01-01T00:00:00Z'])(
        'answers ?%s with 400 INVALID_REQUEST, before looking the ids up',
        async (query) => {
          for (const path of [one(conv.publicId, listed[0].id), one('nope', 'nope')]) {
            const res = await get(t, `${path}?${query}`);
            expectError(res, 400, 'INVALID_REQUEST');
            expect(openapi.errors(template, res)).toEqual([]);
          }
        },
      );

      it('answers 401 without a token', async () => {
        expectError(await http.get(one(conv.publicId, listed[0].id)), 401, 'MISSING_ACCESS_TOKEN');
      });

      it('reads the message with one statement: the same SQL budget as every other read', async () => {
        const spy = jest.spyOn(Client.prototype, 'query');
        try {
          await get(t, one(conv.publicId, listed[0].id)).expect(200);
          expect(spy.mock.calls.length).toBe(4); // BEGIN + the client's state + tenant (one round trip), the message, COMMIT, the audit row
        } finally {
          spy.mockRestore();
        }
      });
    });

    describe('not found', () => {
      let mine: Ref;
      let theirs: Ref;
      let otherChannel: Ref;

      beforeAll(async () => {
        mine = await c.make(a, new Date('2026-02-01T00:00:00Z'));
        theirs = await c.make(b, new Date('2026-02-01T00:00:00Z'));
        otherChannel = await (CHANNELS.find((x) => x !== c) as Channel).make(a, new Date('2026-02-01T00:00:00Z'));
      });

      it.each(['', '/messages'])('answers …%s identically for foreign, other-channel, absent and malformed ids', async (suffix) => {
        await get(a, `${c.path}/${mine.publicId}${suffix}`).expect(200);
        const bodies = [];
        for (const id of [
          theirs.publicId,
          otherChannel.publicId,
          'mtg_0000000000000000000000',
          `${c.prefix}0000000000000000000000`,
          'nope',
          `${c.prefix}${'x'.repeat(300)}`,
          encodeURIComponent(`${c.prefix}' OR 1=1 --`),
        ]) {
          const res = await get(a, `${c.path}/${id}${suffix}`);
          expectError(res, 404, 'RESOURCE_NOT_FOUND');
          expect(openapi.errors(`${c.template}${suffix}`, res)).toEqual([]);
          bodies.push({ ...res.body.error, request_id: undefined });
        }
        expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1);
      });

      it('lets company B read its own conversation', async () => {
        await get(b, `${c.path}/${theirs.publicId}`).expect(200);
        await get(b, `${c.path}/${theirs.publicId}/messages`).expect(200);
      });
    });

    describe('scopes', () => {
      let conv: Ref;
      beforeAll(async () => {
        conv = await c.make(a, new Date('2026-02-02T00:00:00Z'));
      });

      it(`reads the list and the metadata with ${c.scope} alone, and refuses the messages with 403 INSUFFICIENT_SCOPE`, async () => {
        const token = await tokenFor(http, await createClient(db, a.company, { scopes: [c.scope] }));
        await get(token, c.path).expect(200);
        await get(token, `${c.path}/${conv.publicId}`).expect(200);
        const res = await get(token, `${c.path}/${conv.publicId}/messages`);
        expectError(res, 403, 'INSUFFICIENT_SCOPE');
        expect(res.headers['www-authenticate']).toContain(`scope="${c.scope} ${c.contentScope}"`);
        expect(openapi.errors(`${c.template}/messages`, res)).toEqual([]);
      });

      it(`refuses everything to ${c.contentScope} alone, which reads nothing without ${c.scope}`, async () => {
        const token = await tokenFor(http, await createClient(db, a.company, { scopes: [c.contentScope] }));
        for (const suffix of ['', `/${conv.publicId}`, `/${conv.publicId}/messages`]) {
          expectError(await get(token, `${c.path}${suffix}`), 403, 'INSUFFICIENT_SCOPE');
        }
      });

      it('refuses every route to the other channel scopes, before looking the id up', async () => {
        const others: Scope[] = c.name === 'email' ? ['chat.read', 'chat.content.read'] : ['emails.read', 'emails.content.read'];
        const token = await tokenFor(http, await createClient(db, a.company, { scopes: [...others, 'meetings.read'] }));
        for (const suffix of ['', `/${conv.publicId}`, `/${conv.publicId}/messages`, '/nope', '/nope/messages']) {
          expectError(await get(token, `${c.path}${suffix}`), 403, 'INSUFFICIENT_SCOPE');
        }
      });

      it('reads the messages with both scopes together', async () => {
        const token = await tokenFor(http, await createClient(db, a.company, { scopes: [c.scope, c.contentScope] }));
        const res = await get(token, `${c.path}/${conv.publicId}/messages`).expect(200);
        expect(res.body.data).toHaveLength(1);
      });

      it('answers 401 without a token', async () => {
        expectError(await http.get(`${c.path}/${conv.publicId}/messages`), 401, 'MISSING_ACCESS_TOKEN');
      });
    });

    describe('query budget', () => {
      it('loads a page of 1 and a page of 100 conversations, and of messages, with the same number of SQL queries', async () => {
        const t = await tenant();
        const accounts = [await t.people.account(), await t.people.account()];
        const start = new Date('2026-06-01T00:00:00Z');
        const made: Ref[] = [];
        await db.transaction(async (m) => {
          const f = new ConversationsFactory(m, t.company.id);
          const second = await f.mailbox(null, `vendas.${t.company.publicId.slice(4, 10)}@empresa.com.br`);
          for (let i = 0; i < 100; i++) {
            if (c.name === 'email') {
              const thread = await f.thread(t.mailbox, 2, minutes(start, i * 3));
              await f.email({ mailbox: second, references: thread.rootMessageId, sentAt: minutes(start, i * 3 + 2) });
              await f.emailAccounts(thread.conversation, accounts);
              made.push(thread.conversation);
            } else {
              made.push(await f.chat({ seller: t.seller, accounts, messages: [{ sentAt: minutes(start, i) }] }));
            }
          }
        });
        const conv = made[made.length - 1];
        await t.conversations.bulkMessages(c.name, conv, 120, start);
        const spy = jest.spyOn(Client.prototype, 'query'); // every statement of every pool, TypeORM's or not
        const count = async (url: string, limit: number) => {
          spy.mockClear();
          const res = await get(t, `${url}?limit=${limit}`).expect(200);
          expect(res.body.data).toHaveLength(limit);
          return spy.mock.calls.length;
        };
        try {
          const lists = [await count(c.path, 1), await count(c.path, 100)];
          const res = await get(t, `${c.path}?limit=100`).expect(200);
          expect(res.body.data[99].accounts).toHaveLength(2);
          if (c.name === 'email') expect(res.body.data[99].mailboxes).toHaveLength(2);
          const messages = [await count(`${c.path}/${conv.publicId}/messages`, 1), await count(`${c.path}/${conv.publicId}/messages`, 100)];
          expect(lists[1]).toBe(lists[0]);
          expect(messages[1]).toBe(messages[0]);
          expect(lists[0]).toBe(4); // BEGIN + the client's state + tenant (one round trip), the page, COMMIT, the audit row
          expect(messages[0]).toBe(4);
          // include=messages reads the messages of a page in a statement per group of
          // conversations (sized by their bytes), never in one per conversation.
          spy.mockClear();
          const included = await get(t, `${c.path}?limit=100&include=messages`).expect(200);
          expect(included.body.data).toHaveLength(100);
          expect(included.body.data.find((d: { id: string }) => d.id === conv.publicId).included.messages.length).toBeGreaterThanOrEqual(120);
          expect(spy.mock.calls.length).toBeGreaterThan(lists[0]);
          expect(spy.mock.calls.length).toBeLessThanOrEqual(lists[0] + 2);
        } finally {
          spy.mockRestore();
        }
      });
    });
  });

  describe('GET /v1/emails: one conversation per thread across mailboxes', () => {
    let t: Tenant;
    let bruno: UserRef;
    let brunoBox: MailboxRef;
    let sharedBox: MailboxRef;
    let conversation: Ref;
    let root: string;

    beforeAll(async () => {
      t = await tenant();
      bruno = await t.people.user({ name: 'Bruno Vendedor', email: 'bruno@empresa.com.br' });
      brunoBox = await t.conversations.mailbox(bruno);
      sharedBox = await t.conversations.mailbox(null, 'comercial@empresa.com.br');
      const ana = { address: t.mailbox.address, name: 'Ana Vendedora', internal: true };
      const brunoEntry = { address: 'bruno@empresa.com.br', name: 'Bruno Vendedor', internal: true };
      const client = { address: 'compras@cliente.com.br', name: 'Compras Cliente', internal: false };
      const start = new Date('2026-07-01T12:00:00Z');
      // Ana writes to the client with Bruno in copy: both mailboxes capture the message.
      const proposal = {
        sentAt: start,
        direction: 'outbound' as const,
        subject: 'Proposta comercial',
        from: ana,
        to: [client],
        cc: [brunoEntry],
      };
      const first = await t.conversations.email({ ...proposal, mailbox: t.mailbox, messageId: '<proposta-1@mail.empresa.com.br>' });
      root = first.messageId;
      conversation = first.conversation;
      // Bruno's copy of the same message: its id differs only in the case of the domain, which does not count.
      const copy = await t.conversations.email({ ...proposal, mailbox: brunoBox, messageId: '<proposta-1@MAIL.EMPRESA.COM.BR>' });
      expect(copy.conversation).toEqual(conversation);
      expect(copy.message).toBeNull();
      // The client answers all, with the contract attached; Bruno's mailbox captures it, so does the shared one.
      for (const mailbox of [brunoBox, sharedBox]) {
        await t.conversations.email({
          mailbox,
          messageId: '<resposta-1@cliente.com.br>',
          inReplyTo: root,
          references: root,
          sentAt: minutes(start, 30),
          direction: 'inbound',
          subject: 'RES: Proposta comercial',
          body: 'Segue o contrato assinado.',
          from: client,
          to: [ana],
          cc: [brunoEntry, { address: 'juridico@cliente.com.br', name: null, internal: false }],
          attachments: [{ filename: 'contrato.pdf', mime_type: 'application/pdf', size_bytes: 48213 }],
        });
      }
      await t.conversations.emailAccounts(conversation, [await t.people.account('cliente.com.br', '12.345.678/0001-90')]);
      await t.conversations.thread(t.mailbox, 1, minutes(start, -60), 'Outra conversa');
    });

    it('shows one conversation with every mailbox that captured it, its participants and counts', async () => {
      const res = await get(t, `/v1/emails/${conversation.publicId}`).expect(200);
      expect(res.body.data).toEqual({
        id: conversation.publicId,
        object: 'email_conversation',
        subject: 'Proposta comercial',
        first_message_at: '2026-07-01T12:00:00.000000Z',
        last_message_at: '2026-07-01T12:30:00.000000Z',
        message_count: 2,
        has_attachments: true,
        last_message_direction: 'inbound',
        participants: [
          { address: t.mailbox.address, name: 'Ana Vendedora', internal: true },
          { address: 'compras@cliente.com.br', name: 'Compras Cliente', internal: false },
          { address: 'bruno@empresa.com.br', name: 'Bruno Vendedor', internal: true },
          { address: 'juridico@cliente.com.br', name: null, internal: false },
        ],
        mailboxes: expect.arrayContaining([
          { address: t.mailbox.address, owner: { id: t.seller.publicId, name: t.seller.name, email: t.seller.email } },
          { address: 'bruno@empresa.com.br', owner: { id: bruno.publicId, name: 'Bruno Vendedor', email: 'bruno@empresa.com.br' } },
          { address: 'comercial@empresa.com.br', owner: null },
        ]),
        accounts: [{ id: expect.stringMatching(/^acc_/), domain: 'cliente.com.br', cnpj: '12.345.678/0001-90' }],
      });
      expect(res.body.data.mailboxes).toHaveLength(3);
      expect(openapi.errors('/v1/emails/{email_id}', res)).toEqual([]);
      const list = await get(t, '/v1/emails').expect(200);
      expect(ids(list)).toHaveLength(2);
      expect(ids(list).filter((id: string) => id === conversation.publicId)).toHaveLength(1);
      expect(openapi.errors('/v1/emails', list)).toEqual([]);
    });

    it('lists each message once, oldest first, with addresses and attachment metadata only', async () => {
      const res = await get(t, `/v1/emails/${conversation.publicId}/messages`).expect(200);
      expect(res.body.data).toHaveLength(2);
      const [sent, reply] = res.body.data;
      expect(sent).toEqual({
        id: expect.stringMatching(/^emsg_/),
        object: 'email_message',
        conversation_id: conversation.publicId,
        sent_at: '2026-07-01T12:00:00.000000Z',
        direction: 'outbound',
        subject: 'Proposta comercial',
        snippet: expect.any(String),
        body_text: expect.any(String),
        from: { address: t.mailbox.address, name: 'Ana Vendedora', internal: true },
        to: [{ address: 'compras@cliente.com.br', name: 'Compras Cliente', internal: false }],
        cc: [{ address: 'bruno@empresa.com.br', name: 'Bruno Vendedor', internal: true }],
        attachments: [],
      });
      expect(reply).toMatchObject({
        direction: 'inbound',
        subject: 'RES: Proposta comercial',
        body_text: 'Segue o contrato assinado.',
        snippet: 'Segue o contrato assinado.',
        attachments: [{ filename: 'contrato.pdf', mime_type: 'application/pdf', size_bytes: 48213 }],
      });
      expect(openapi.errors('/v1/emails/{email_id}/messages', res)).toEqual([]);
      // Each read by id as the list shows it: the message two mailboxes captured is one message.
      for (const m of [sent, reply]) {
        const one = await get(t, `/v1/emails/${conversation.publicId}/messages/${m.id}`).expect(200);
        expect(one.body.data).toEqual(m);
        expect(openapi.errors('/v1/emails/{email_id}/messages/{message_id}', one)).toEqual([]);
      }
    });

    it('moves the conversation forward when a reply arrives, and counts it', async () => {
      await t.conversations.email({
        mailbox: t.mailbox,
        references: root,
        sentAt: new Date('2026-07-02T09:00:00Z'),
        subject: 'Re: Proposta comercial',
      });
      const res = await get(t, `/v1/emails/${conversation.publicId}`).expect(200);
      expect(res.body.data).toMatchObject({
        message_count: 3,
        last_message_at: '2026-07-02T09:00:00.000000Z',
        last_message_direction: 'outbound',
      });
      const after = await get(t, '/v1/emails?last_message_after=2026-07-01T23:00:00Z').expect(200);
      expect(ids(after)).toEqual([conversation.publicId]);
    });
  });

  describe('GET /v1/chat: chat states', () => {
    let t: Tenant;
    const start = new Date('2026-08-01T09:00:00Z');

    beforeAll(async () => {
      t = await tenant();
    });

    const messages = async (conv: Ref) => {
      const res = await get(t, `/v1/chat/${conv.publicId}/messages`).expect(200);
      expect(openapi.errors('/v1/chat/{chat_id}/messages', res)).toEqual([]);
      return res.body.data;
    };
    /** One message read by id, as `GET /v1/chat/{chat_id}/messages/{message_id}` answers it. */
    const message = async (conv: Ref, id: string) => {
      const res = await get(t, `/v1/chat/${conv.publicId}/messages/${id}`).expect(200);
      expect(openapi.errors('/v1/chat/{chat_id}/messages/{message_id}', res)).toEqual([]);
      return res.body.data;
    };

    it('shows a one-to-one chat with its contact, seller, accounts and activity', async () => {
      const account = await t.people.account('loja.com.br', null);
      const chat = await t.conversations.chat({
        seller: t.seller,
        sellerPhone: '+55 11 91111-2222',
        contact: { phone: '+55 21 99999-0000', name: 'Carla Compradora' },
        accounts: [account],
        messages: [
          { sentAt: start, direction: 'inbound', text: 'Oi, tudo bem?' },
          { sentAt: minutes(start, 5), direction: 'outbound', text: 'Tudo ótimo!' },
        ],
      });
      const res = await get(t, `/v1/chat/${chat.publicId}`).expect(200);
      expect(res.body.data).toEqual({
        id: chat.publicId,
        object: 'chat_conversation',
        source: 'chat_web',
        is_group: false,
        contact: { phone: '+55 21 99999-0000', name: 'Carla Compradora' },
        seller: { user: { id: t.seller.publicId, name: t.seller.name, email: t.seller.email }, phone: '+55 11 91111-2222' },
        accounts: [{ id: account.publicId, domain: 'loja.com.br', cnpj: null }],
        first_message_at: '2026-08-01T09:00:00.000000Z',
        last_message_at: '2026-08-01T09:05:00.000000Z',
        last_message_direction: 'outbound',
        deleted_at: null,
        deleted_reason: null,
      });
      expect(openapi.errors('/v1/chat/{chat_id}', res)).toEqual([]);
      const [first] = await messages(chat);
      expect(first).toEqual({
        id: chat.messages[0].publicId,
        object: 'chat_message',
        conversation_id: chat.publicId,
        sent_at: '2026-08-01T09:00:00.000000Z',
        direction: 'inbound',
        author: { phone: '+55 11 98888-7777', name: 'Cliente' },
        type: 'text',
        text: 'Oi, tudo bem?',
        media: null,
        transcription: null,
        edited_at: null,
        deleted_at: null,
        deleted_reason: null,
      });
    });

    it('shows a group chat without a contact phone', async () => {
      const chat = await t.conversations.chat({
        seller: t.seller,
        isGroup: true,
        contact: { phone: null, name: 'Projeto ACME' },
        messages: [{ sentAt: start, authorName: 'Diego', authorPhone: '+55 31 97777-6666' }],
      });
      const res = await get(t, `/v1/chat/${chat.publicId}`).expect(200);
      expect(res.body.data).toMatchObject({ is_group: true, contact: { phone: null, name: 'Projeto ACME' } });
      expect((await messages(chat))[0].author).toEqual({ phone: '+55 31 97777-6666', name: 'Diego' });
    });

    it('keeps a message deleted for everyone in place as a tombstone with every content field null, without moving the chat', async () => {
      const chat = await t.conversations.chat({
        seller: t.seller,
        messages: [
          { sentAt: start, text: 'primeira' },
          {
            sentAt: minutes(start, 1),
            type: 'audio',
            text: null,
            media: { file_name: 'audio.ogg', mime_type: 'audio/ogg', size_bytes: 5120 },
            transcription: 'segredo',
          },
          { sentAt: minutes(start, 2), text: 'terceira' },
        ],
      });
      await t.conversations.deleteChatMessage(chat.messages[1], 'revoked_for_everyone', new Date('2026-08-05T00:00:00Z'));
      const list = await messages(chat);
      expect(list.map((m: { id: string }) => m.id)).toEqual(chat.messages.map((m) => m.publicId));
      expect(list[1]).toMatchObject({
        type: 'audio',
        text: null,
        media: null,
        transcription: null,
        deleted_at: '2026-08-05T00:00:00.000000Z',
        deleted_reason: 'revoked_for_everyone',
      });
      expect(JSON.stringify(list[1])).not.toContain('segredo');
      expect(list[2]).toMatchObject({ text: 'terceira', deleted_at: null });
      // Read by id, the tombstone is the same: masked the same way.
      expect(await message(chat, list[1].id)).toEqual(list[1]);
      expect(await message(chat, list[2].id)).toEqual(list[2]);
      const conv = (await get(t, `/v1/chat/${chat.publicId}`).expect(200)).body.data;
      expect(conv.last_message_at).toBe('2026-08-01T09:02:00.000000Z');
    });

    it('shows an edited message with its current text and edited_at, without moving the chat', async () => {
      const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: start, text: 'preço: 100' }] });
      await t.conversations.editChatMessage(chat.messages[0], 'preço: 90', new Date('2026-08-03T10:00:00Z'));
      const [edited] = await messages(chat);
      expect(edited).toMatchObject({ text: 'preço: 90', edited_at: '2026-08-03T10:00:00.000000Z', deleted_at: null });
      expect(await message(chat, edited.id)).toEqual(edited);
      const conv = (await get(t, `/v1/chat/${chat.publicId}`).expect(200)).body.data;
      expect(conv.last_message_at).toBe('2026-08-01T09:00:00.000000Z');
      const after = await get(t, '/v1/chat?last_message_after=2026-08-02T00:00:00Z').expect(200);
      expect(ids(after)).not.toContain(chat.publicId);
    });

    it('shows an audio message with its transcription, and media without a file name', async () => {
      const chat = await t.conversations.chat({
        seller: t.seller,
        messages: [
          {
            sentAt: start,
            type: 'audio',
            text: null,
            media: { file_name: null, mime_type: 'audio/ogg; codecs=opus', size_bytes: 20480 },
            transcription: 'Podemos fechar na sexta.',
          },
          {
            sentAt: minutes(start, 1),
            type: 'image',
            text: 'foto da vitrine',
            media: { file_name: null, mime_type: 'image/jpeg', size_bytes: 1000 },
          },
        ],
      });
      const [audio, image] = await messages(chat);
      expect(audio).toMatchObject({
        type: 'audio',
        text: null,
        media: { file_name: null, mime_type: 'audio/ogg; codecs=opus', size_bytes: 20480 },
        transcription: 'Podemos fechar na sexta.',
      });
      expect(image).toMatchObject({
        type: 'image',
        text: 'foto da vitrine',
        media: { file_name: null, mime_type: 'image/jpeg', size_bytes: 1000 },
      });
    });

    it('still answers 200 for a deleted chat, with deleted_at and deleted_reason, in the list and on its own', async () => {
      const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: minutes(start, 500) }] });
      await t.conversations.deleteChat(chat, 'deleted_by_seller', new Date('2026-08-10T00:00:00Z'));
      const res = await get(t, `/v1/chat/${chat.publicId}`).expect(200);
      expect(res.body.data).toMatchObject({ deleted_at: '2026-08-10T00:00:00.000000Z', deleted_reason: 'deleted_by_seller' });
      expect(openapi.errors('/v1/chat/{chat_id}', res)).toEqual([]);
      const list = await get(t, '/v1/chat').expect(200);
      expect(list.body.data.find((x: { id: string }) => x.id === chat.publicId)).toMatchObject({ deleted_reason: 'deleted_by_seller' });
      const [only] = await messages(chat);
      expect(await message(chat, only.id)).toEqual(only);
    });

    it('moves last_message_at and last_message_direction when a message arrives', async () => {
      const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: start, direction: 'inbound' }] });
      await t.conversations.chatMessage(chat, { sentAt: minutes(start, 90), direction: 'outbound' });
      const conv = (await get(t, `/v1/chat/${chat.publicId}`).expect(200)).body.data;
      expect(conv).toMatchObject({
        last_message_at: '2026-08-01T10:30:00.000000Z',
        last_message_direction: 'outbound',
        first_message_at: '2026-08-01T09:00:00.000000Z',
      });
    });
  });
});
