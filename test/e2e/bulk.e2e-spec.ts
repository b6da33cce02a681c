import { NestExpressApplication } from '@nestjs/platform-express';
import { CHAT_CHANNEL } from '../../src/chat/chat-channel';
import { EMAIL_CHANNEL } from '../../src/emails/email-channel';
import { DOCUMENT_FORMAT } from '../../src/recordings/recording.sql';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { mintId } from '../../src/common/ids/public-id';
import { loadConfig } from '../../src/config/app-config';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { runCli } from '../support/cli';
import { createClient, tokenFor } from '../support/credentials';
import { expectError, traverse } from '../support/http';
import { createTestApp, ownerDataSource } from '../support/test-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const RECORDINGS = [
  { path: '/v1/meetings', prefix: 'mtg_', scope: 'meetings.read' as Scope, otherPrefix: 'call_' },
  { path: '/v1/calls', prefix: 'call_', scope: 'calls.read' as Scope, otherPrefix: 'mtg_' },
];
const CHANNELS = [
  {
    path: '/v1/emails',
    scope: 'emails.read' as Scope,
    content: 'emails.content.read' as Scope,
    policy: 'email_content',
    messagePrefix: 'emsg_',
  },
  { path: '/v1/chat', scope: 'chat.read' as Scope, content: 'chat.content.read' as Scope, policy: 'chat_content', messagePrefix: 'wamsg_' },
];
const PARTS = ['evaluation', 'answers', 'transcript'];
/** Every non-empty combination of the recording parts. */
const COMBINATIONS = [1, 2, 3, 4, 5, 6, 7].map((mask) => PARTS.filter((_, i) => mask & (1 << i)));

describe('bulk reads: include and ids', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let company: Company;
  let other: Company;
  let token: string;
  let otherToken: string;

  const get = (url: string, t = token) => http.get(url).set('Authorization', `Bearer ${t}`);
  const all = async (url: string, t = token): Promise<Json[]> => (await traverse((u) => get(u, t), url, [7, 100, 1])).records;

  /**
   * A cursor of `path?ids=…` binds the set of ids, not their order: it continues the same ids in
   * another order and with a repeated one, answering what the first order's next page answers;
   * it is refused (400 INVALID_CURSOR) for another set.
   */
  async function expectCursorBindsIdSet(path: string, ids: string[]): Promise<void> {
    const first = await get(`${path}?ids=${ids.join(',')}&limit=1`).expect(200);
    expect(first.body.pagination.has_more).toBe(true);
    const cursor = first.body.pagination.next_cursor;
    const next = await get(`${path}?ids=${ids.join(',')}&limit=1&cursor=${cursor}`).expect(200);
    const reordered = [...ids].reverse();
    for (const same of [reordered, [...reordered, ids[0]]]) {
      const res = await get(`${path}?ids=${same.join(',')}&limit=1&cursor=${cursor}`).expect(200);
      expect(res.body.data).toEqual(next.body.data);
    }
    expectError(await get(`${path}?ids=${ids.slice(1).join(',')}&limit=1&cursor=${cursor}`), 400, 'INVALID_CURSOR');
  }

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    const config = loadConfig({ NODE_ENV: 'test' });
    const [demo, otherDemo] = [await DemoSeeder.over(db, config).seed(), await DemoSeeder.over(db, config).seed()];
    company = await db.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
    other = await db.getRepository(Company).findOneByOrFail({ publicId: otherDemo.company_id });
    token = await tokenFor(http, await createClient(db, company, { scopes: [...ALL_SCOPES] }));
    otherToken = await tokenFor(http, await createClient(db, other, { scopes: [...ALL_SCOPES] }));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  /**
   * Puts a read model in the state `how` names for the company: emptied (every record or
   * conversation rendered live) or written by `documents:refresh` (served as stored).
   */
  async function readModelIs(how: string, table: 'recording_documents' | 'conversation_documents'): Promise<void> {
    if (how === 'rendered live') {
      const emptied = table === 'conversation_documents' ? 'document = NULL, messages = NULL' : 'document = NULL';
      await db.query(`UPDATE ${table} SET ${emptied}, format = NULL WHERE company_id = $1`, [company.id]);
    } else {
      expect((await runCli({}, 'documents:refresh', '--json')).code).toBe(0);
    }
    // Of the service's own format: documents it serves, not documents it would render live anyway.
    const formats = table === 'conversation_documents' ? [EMAIL_CHANNEL.documentFormat, CHAT_CHANNEL.documentFormat] : [DOCUMENT_FORMAT];
    const [{ stored }] = await db.query(`SELECT count(*)::int AS stored FROM ${table} WHERE company_id = $1 AND format = ANY ($2::int[])`, [
      company.id,
      formats,
    ]);
    if (how === 'rendered live') expect(stored).toBe(0);
    else expect(stored).toBeGreaterThan(0);
  }

  describe.each(RECORDINGS)('$path', (c) => {
    it.each(['rendered live', 'stored by the read model'])(
      'include embeds each part exactly as its own route answers it, for every record in every demo state; the record is otherwise unchanged (%s)',
      async (how) => {
        await readModelIs(how, 'recording_documents');
        const plain = await all(c.path);
        const included = await all(`${c.path}?include=transcript,evaluation,answers`);
        expect(included.map((r) => r.id)).toEqual(plain.map((r) => r.id));
        const states = new Set<string>();
        for (const [i, record] of included.entries()) {
          const { included: parts, ...rest } = record;
          expect(rest).toEqual(plain[i]);
          expect(Object.keys(parts)).toEqual(PARTS);
          const [evaluation, answers, transcript] = await Promise.all(
            ['evaluations/overall', 'answers', 'transcript'].map(
              async (part) => (await get(`${c.path}/${record.id}/${part}`).expect(200)).body.data,
            ),
          );
          expect(parts).toEqual({ evaluation, answers, transcript });
          states.add(`transcript:${transcript.available ? transcript.variant : transcript.status}`);
          states.add(`evaluation:${evaluation.status}`);
          states.add(`answers:${answers.length ? 'some' : 'none'}`);
        }
        // The demo crosses the states the parts have (an unavailable transcript, an evaluation not started, no answers).
        for (const state of [
          'transcript:not_started',
          'transcript:failed',
          'transcript:enhanced',
          'evaluation:not_started',
          'evaluation:completed',
          'answers:none',
          'answers:some',
        ]) {
          expect([...states]).toContain(state);
        }
      },
    );

    it('a transcript stored oddly (not a list; utterances null, without their text or whole times, a speaker not a string) answers the same through include and its route, within the contract, never 500', async () => {
      const [{ id, public_id }] = await db.query(
        `SELECT r.id::text AS id, r.public_id FROM recordings r JOIN companies c ON c.id = r.company_id
         WHERE c.public_id = $1 AND r.kind = $2 AND r.transcript_status = 'completed' AND EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id)
         ORDER BY r.id LIMIT 1`,
        [company.publicId, c.prefix === 'mtg_' ? 'meeting' : 'call'],
      );
      const saved: Array<{ variant: string; utterances: unknown }> = await db.query(
        'SELECT variant, utterances FROM transcripts WHERE recording_id = $1',
        [id],
      );
      try {
        // Stored as text, so that a time can be spelled 1500.0: not a list; then each kind of odd utterance beside a good one.
        const odd = [
          '{"speaker": "A", "text": "x"}',
          '[null, 7, {"speaker": "B"}, {"speaker": 7, "text": "só <texto> \\"citado\\"", "start_ms": 1500.0, "end_ms": 2500}, {"speaker": "C", "text": "ok", "start_ms": 1.5, "end_ms": 3}, {"text": "sem fim", "start_ms": 1}, {"speaker": "D", "text": "inteira", "start_ms": "1", "end_ms": 2}]',
        ];
        for (const stored of odd) {
          await db.query('UPDATE transcripts SET utterances = $2::jsonb WHERE recording_id = $1', [id, stored]);
          const ownRes = await get(`${c.path}/${public_id}/transcript`).expect(200);
          const listedRes = await get(`${c.path}?ids=${public_id}&include=transcript`).expect(200);
          const own = ownRes.body.data;
          expect(listedRes.body.data[0].included.transcript).toEqual(own);
          expect(own.utterances).toEqual(
            stored.startsWith('[') ? [{ speaker: null, text: 'só <texto> "citado"', start_ms: 1500, end_ms: 2500 }] : [],
          );
          // The same bytes both ways (1500.0 written 1500).
          const ownText = JSON.stringify(own.utterances);
          expect(listedRes.text).toContain(ownText);
          expect(ownRes.text).toContain(ownText);
        }
      } finally {
        for (const row of saved) {
          await db.query('UPDATE transcripts SET utterances = $3::jsonb WHERE recording_id = $1 AND variant = $2', [
            id,
            row.variant,
            JSON.stringify(row.utterances),
          ]);
        }
      }
    });

    it.each(COMBINATIONS.map((parts) => [parts.join(',')]))(
      'include=%s on the detail route: only those parts, in the documented order',
      async (include) => {
        const [first] = await all(
          `${c.path}?ids=${(await all(c.path))
            .slice(0, 3)
            .map((r) => r.id)
            .join(',')}`,
        );
        const res = await get(`${c.path}/${first.id}?include=${include.split(',').reverse().join(',')}`).expect(200);
        const asked = include.split(',');
        expect(Object.keys(res.body.data.included)).toEqual(PARTS.filter((p) => asked.includes(p)));
        const { included, ...rest } = res.body.data;
        expect(rest).toEqual((await get(`${c.path}/${first.id}`).expect(200)).body.data);
        const route = { evaluation: 'evaluations/overall', answers: 'answers', transcript: 'transcript' } as Record<string, string>;
        for (const part of asked) expect(included[part]).toEqual((await get(`${c.path}/${first.id}/${route[part]}`).expect(200)).body.data);
      },
    );

    it("include: an unknown part, a repeated one, an empty item or another collection's part is 400 INVALID_FILTER", async () => {
      for (const include of ['summary', 'transcript,transcript', 'transcript,', 'messages', '']) {
        const res = await get(`${c.path}?include=${include}`);
        if (include === '') expectError(res, 400, 'INVALID_REQUEST');
        else expectError(res, 400, 'INVALID_FILTER');
        expectError(await get(`${c.path}/${c.prefix}${'a'.repeat(22)}?include=${include || 'x'}`), 400, 'INVALID_FILTER');
      }
    });

    it('include=transcript needs transcriptions.read (403 INSUFFICIENT_SCOPE), the other parts only the collection scope', async () => {
      const limited = await tokenFor(http, await createClient(db, company, { scopes: [c.scope] }));
      const [record] = await all(c.path);
      for (const url of [`${c.path}?include=transcript`, `${c.path}/${record.id}?include=evaluation,transcript`]) {
        const res = await get(url, limited);
        expectError(res, 403, 'INSUFFICIENT_SCOPE');
        expect(res.headers['www-authenticate']).toContain('transcriptions.read');
      }
      const res = await get(`${c.path}?include=evaluation,answers&limit=2`, limited).expect(200);
      expect(Object.keys(res.body.data[0].included)).toEqual(['evaluation', 'answers']);
    });

    it("ids: the company's records among them, in the list's order, once each; foreign and unknown ids absent; combined with filters and include", async () => {
      const records = await all(c.path);
      const foreign = (await all(c.path, otherToken))[0].id;
      const picked = [records[5].id, records[1].id, records[5].id, foreign, `${c.prefix}${mintId('meeting').slice(4)}`, records[3].id];
      const res = await get(`${c.path}?ids=${picked.join(',')}&include=evaluation`).expect(200);
      expect(res.body.data.map((r: Json) => r.id)).toEqual([records[1].id, records[3].id, records[5].id]);
      expect(res.body.data.every((r: Json) => r.included.evaluation.meeting_id === r.id)).toBe(true);
      // AND with the other filters.
      const audio = records.filter((r) => r.type === 'audio').slice(0, 2);
      const video = records.filter((r) => r.type === 'video').slice(0, 2);
      const both = [...audio, ...video].map((r) => r.id).join(',');
      expect((await get(`${c.path}?ids=${both}&type=audio`).expect(200)).body.data.map((r: Json) => r.id)).toEqual(
        records.filter((r) => audio.includes(r)).map((r) => r.id),
      );
      // Paged: the cursor is bound to the ids.
      const page = await get(`${c.path}?ids=${both}&limit=1`).expect(200);
      expect(page.body.pagination.has_more).toBe(true);
      expectError(await get(`${c.path}?limit=1&cursor=${page.body.pagination.next_cursor}`), 400, 'INVALID_CURSOR');
      expect((await traverse(get, `${c.path}?ids=${both}`, [1])).ids).toEqual(
        records.filter((r) => [...audio, ...video].includes(r)).map((r) => r.id),
      );
    });

    it('ids: a cursor binds the set of ids, not their order (accepted reordered or with a repeat, refused for another set)', async () => {
      await expectCursorBindsIdSet(c.path, (await all(c.path)).slice(0, 3).map((r) => r.id));
    });

    it('ids: malformed, of another collection, empty items or more than 100 are 400 INVALID_FILTER', async () => {
      const ids = Array.from({ length: 101 }, () => `${c.prefix}${mintId('meeting').slice(4)}`);
      for (const bad of [
        'nope',
        `${c.otherPrefix}${'a'.repeat(22)}`,
        `${c.prefix}${'a'.repeat(22)},`,
        ids.join(','),
        `${c.prefix}${'a'.repeat(21)}`,
      ]) {
        expectError(await get(`${c.path}?ids=${bad}`), 400, 'INVALID_FILTER');
      }
      expect((await get(`${c.path}?ids=${ids.slice(0, 100).join(',')}`).expect(200)).body.data).toEqual([]);
    });
  });

  describe.each(CHANNELS)('$path', (c) => {
    /** Every message of a conversation, walked through its messages route. */
    const messagesOf = async (id: string) => (await traverse(get, `${c.path}/${id}/messages`, [100])).records;

    it.each(['rendered live', 'stored by the read model'])(
      'include=messages embeds every message as the messages route shows them, in its order (tombstones, attachments) (%s)',
      async (how) => {
        await readModelIs(how, 'conversation_documents');
        const plain = await all(c.path);
        const included = await all(`${c.path}?include=messages`);
        expect(included.map((r) => r.id)).toEqual(plain.map((r) => r.id));
        let messages = 0;
        for (const [i, conversation] of included.entries()) {
          const { included: parts, ...rest } = conversation;
          expect(rest).toEqual(plain[i]);
          expect(parts).toEqual({ messages: await messagesOf(conversation.id), messages_next_cursor: null });
          messages += parts.messages.length;
        }
        expect(messages).toBeGreaterThan(included.length);
        const [first] = plain;
        const detail = await get(`${c.path}/${first.id}?include=messages`).expect(200);
        expect(detail.body.data).toEqual({ ...first, included: { messages: await messagesOf(first.id), messages_next_cursor: null } });
      },
    );

    it('include=messages needs the content scope (403) and counts against the content policy; the metadata alone does not', async () => {
      const metadataOnly = await tokenFor(http, await createClient(db, company, { scopes: [c.scope] }));
      expectError(await get(`${c.path}?include=messages`, metadataOnly), 403, 'INSUFFICIENT_SCOPE');
      const [first] = await all(c.path);
      expectError(await get(`${c.path}/${first.id}?include=messages`, metadataOnly), 403, 'INSUFFICIENT_SCOPE');
      const counted = await get(`${c.path}?include=messages&limit=1`).expect(200);
      expect(counted.headers['ratelimit-policy']).toContain(`"${c.policy}"`);
      const plain = await get(`${c.path}?limit=1`).expect(200);
      expect(plain.headers['ratelimit-policy']).not.toContain(`"${c.policy}"`);
    });

    it('ids: a cursor binds the set of ids, not their order, on the conversations and on the messages routes', async () => {
      const conversations = await all(c.path);
      await expectCursorBindsIdSet(c.path, conversations.slice(0, 3).map((r) => r.id));
      const withMany = conversations.find((conv) => conv.message_count >= 3) ?? conversations[0];
      await expectCursorBindsIdSet(`${c.path}/${withMany.id}/messages`, (await messagesOf(withMany.id)).slice(0, 3).map((m) => m.id));
    });

    it('ids on the conversations and on the messages routes', async () => {
      const conversations = await all(c.path);
      const foreign = (await all(c.path, otherToken))[0].id;
      const picked = [conversations[2].id, foreign, conversations[0].id, conversations[2].id];
      expect((await get(`${c.path}?ids=${picked.join(',')}`).expect(200)).body.data.map((r: Json) => r.id)).toEqual([
        conversations[0].id,
        conversations[2].id,
      ]);
      const withMany = conversations.find((conv) => conv.message_count >= 3) ?? conversations[0];
      const messages = await messagesOf(withMany.id);
      const chosen = [messages[messages.length - 1].id, messages[0].id, messages[0].id, `${c.messagePrefix}${'a'.repeat(22)}`];
      const res = await get(`${c.path}/${withMany.id}/messages?ids=${chosen.join(',')}`).expect(200);
      expect(res.body.data).toEqual([messages[0], messages[messages.length - 1]]);
      expectError(
        await get(`${c.path}/${withMany.id}/messages?ids=${c.path === '/v1/chat' ? 'emsg_' : 'wamsg_'}${'a'.repeat(22)}`),
        400,
        'INVALID_FILTER',
      );
    });
  });
});

describe('bulk reads: the byte budget (PAGE_BYTES_MAX)', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let token: string;
  const BUDGET = 4096;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { PAGE_BYTES_MAX: String(BUDGET) } })]);
    http = request(app.getHttpServer());
    const demo = await DemoSeeder.over(db, loadConfig({ NODE_ENV: 'test' })).seed();
    const company = await db.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
    token = await tokenFor(http, await createClient(db, company, { scopes: [...ALL_SCOPES] }));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);

  it.each([
    ['/v1/meetings', 'transcript,answers'],
    ['/v1/calls', 'transcript'],
    ['/v1/chat', 'messages'],
    ['/v1/emails', 'messages'],
  ])(
    '%s?include=%s: pages stop at the budget (at least one item), has_more says so, and the walk yields every record once',
    async (path, include) => {
      const first = await get(`${path}?include=${include}&limit=100`).expect(200);
      const { data, pagination } = first.body;
      expect(data.length).toBeGreaterThanOrEqual(1);
      expect(pagination.limit).toBe(100);
      const everything = (await traverse(get, path, [100])).ids;
      if (data.length < everything.length) {
        expect(pagination.has_more).toBe(true);
        // The items served fit the budget, but for a first item larger than it alone.
        const bytes = data.reduce((n: number, item: Json) => n + Buffer.byteLength(JSON.stringify(item)) + 1, 0);
        if (data.length > 1) expect(bytes).toBeLessThanOrEqual(BUDGET);
      }
      const walked = await traverse(get, `${path}?include=${include}`, [100]);
      expect(walked.ids).toEqual(everything);
      expect(new Set(walked.ids).size).toBe(walked.ids.length);
      // The budget cut at least one page short of its limit somewhere.
      expect(walked.pages).toBeGreaterThan(Math.ceil(everything.length / 100));
    },
  );
});
