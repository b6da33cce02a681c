import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { Company } from '../../src/companies/company.entity';
import { EVALUATION_STATES, RecordingsFactory, Ref, TemplateRef, TRANSCRIPT_STATES, UserRef } from '../../src/seeding/recordings.factory';
import { RecordingKind } from '../../src/recordings/recording.vocabulary';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { OpenApiResponses } from '../support/openapi-responses';
import { expectError, traverse } from '../support/http';
import { createTestApp, ownerDataSource } from '../support/test-app';

const ALL = ['meetings.read', 'calls.read', 'transcriptions.read'] as const;

interface Collection {
  kind: RecordingKind;
  path: string;
  prefix: string;
  other: { kind: RecordingKind; path: string };
  scope: 'meetings.read' | 'calls.read';
}

const COLLECTIONS: Collection[] = [
  { kind: 'meeting', path: '/v1/meetings', prefix: 'mtg_', other: { kind: 'call', path: '/v1/calls' }, scope: 'meetings.read' },
  { kind: 'call', path: '/v1/calls', prefix: 'call_', other: { kind: 'meeting', path: '/v1/meetings' }, scope: 'calls.read' },
];

/** A company with a client holding every recording scope, and a factory for its data. */
interface Tenant {
  company: Company;
  factory: RecordingsFactory;
  owner: UserRef;
  token: string;
}

describe.each(COLLECTIONS)('$path', (c) => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let openapi: OpenApiResponses;
  let a: Tenant;
  let b: Tenant;

  async function tenant(): Promise<Tenant> {
    const company = await createCompany(db);
    const factory = new RecordingsFactory(db, company.id);
    const owner = await factory.user({ email: `Dona.${company.publicId}@Example.com` });
    const token = await tokenFor(http, await createClient(db, company, { scopes: [...ALL] }));
    return { company, factory, owner, token };
  }

  const get = (t: Tenant | string, url: string) => http.get(url).set('Authorization', `Bearer ${typeof t === 'string' ? t : t.token}`);

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    openapi = await OpenApiResponses.load(http);
    [a, b] = await Promise.all([tenant(), tenant()]);
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  describe('a full record', () => {
    let template: TemplateRef;
    let record: Ref;
    let team: Ref;
    let speaker: UserRef;

    beforeAll(async () => {
      team = await a.factory.team('Vendas Enterprise');
      await a.factory.membership(a.owner, team, 'leadership', true);
      speaker = await a.factory.user({ name: 'Outra Pessoa', email: 'outra@example.com' });
      template = await a.factory.template([
        { text: 'Qual o orçamento?', type: 'number' },
        { text: 'Quem decide?', type: 'text' },
        { text: 'Tem urgência?', type: 'boolean' },
      ]);
      record = await a.factory.recording(c.kind, {
        owner: a.owner,
        title: 'Demonstração para ACME',
        template,
        transcript: 'enhanced',
        evaluation: 'completed',
        tags: [await a.factory.tag('prioridade')],
        competitors: [await a.factory.competitor('Rival S.A.')],
        accounts: [await a.factory.account('acme.com.br', '12345678000190'), await a.factory.account('acme.com', null)],
        enablement: { speakers: [a.owner, speaker], meetingType: 'negotiation', nextSteps: 'Enviar proposta', othersSeconds: 120 },
        skillScores: [{ user: a.owner, skill: await a.factory.skill('Descoberta'), score: 4 }],
        botHistory: [{ code: 'joined', subcode: null, occurred_at: '2026-01-01T10:00:00.12+00:00' }],
      });
    });

    it('GET …/{id} returns every field of the spec, with the owner default team, template answers and enablement', async () => {
      const res = await get(a, `${c.path}/${record.publicId}`).expect(200);
      const r = res.body.data;
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      expect(r).toMatchObject({
        id: record.publicId,
        object: c.kind,
        title: 'Demonstração para ACME',
        status: 'completed',
        owner: {
          id: a.owner.publicId,
          name: a.owner.name,
          email: a.owner.email,
          team: { id: team.publicId, name: 'Vendas Enterprise', role: 'leadership', is_default: true },
        },
        template: {
          id: template.publicId,
          name: expect.any(String),
          answers: template.questions.map((q) => ({ field: q.publicId, question: q.text, answer: `Resposta ${q.position}` })),
        },
        tags: [{ id: expect.stringMatching(/^tag_/), name: 'prioridade' }],
        competitors: [{ id: expect.stringMatching(/^ctr_/), name: 'Rival S.A.' }],
        accounts: [
          { id: expect.stringMatching(/^acc_/), domain: 'acme.com', cnpj: null },
          { id: expect.stringMatching(/^acc_/), domain: 'acme.com.br', cnpj: '12345678000190' },
        ],
        enablement: {
          next_steps: 'Enviar proposta',
          meeting_type: 'negotiation',
          speaking_duration: {
            users: [
              { user: { id: a.owner.publicId, name: a.owner.name, email: a.owner.email }, duration_seconds: 600 },
              { user: { id: speaker.publicId, name: 'Outra Pessoa', email: 'outra@example.com' }, duration_seconds: 540 },
            ],
            others_seconds: 120,
          },
        },
        overall_evaluation: { status: 'completed', justification: expect.any(String) },
        skill_scores: [
          {
            user: { id: a.owner.publicId },
            skill: { id: expect.stringMatching(/^skl_/), name: 'Descoberta' },
            score: 4,
            justification: null,
          },
        ],
        transcript: { available: true, status: 'completed' },
      });
      expect(Object.keys(r)).toEqual([
        'id',
        'object',
        'title',
        'status',
        'type',
        'audience',
        'meeting_at',
        'duration_seconds',
        'no_show',
        'participants',
        'owner',
        'template',
        'tags',
        'customer_questions',
        'competitors',
        'enablement',
        'accounts',
        'overall_evaluation',
        'skill_scores',
        'transcript',
        ...(c.kind === 'meeting' ? ['bot_history'] : []),
        'created_at',
        'updated_at',
      ]);
      expect(r.participants[0]).toEqual(
        c.kind === 'meeting'
          ? { display_name: expect.any(String), email: expect.any(String), kind: 'external' }
          : { display_name: expect.any(String), phone: expect.any(String), kind: 'external' },
      );
      expect(openapi.errors(`${c.path}/{${c.kind}_id}`, res)).toEqual([]);
    });

    it(c.kind === 'meeting' ? 'has bot_history on a meeting' : 'has no bot_history key at all on a call', async () => {
      const res = await get(a, `${c.path}/${record.publicId}`).expect(200);
      if (c.kind === 'meeting')
        expect(res.body.data.bot_history).toEqual([{ code: 'joined', subcode: null, occurred_at: '2026-01-01T10:00:00.120000Z' }]);
      else expect(res.body.data).not.toHaveProperty('bot_history');
    });

    it('GET …/answers lists the default template answers in question order, without pagination', async () => {
      const res = await get(a, `${c.path}/${record.publicId}/answers`).expect(200);
      expect(Object.keys(res.body)).toEqual(['data', 'request_id']);
      expect(res.body.data).toEqual(
        template.questions.map((q) => ({
          id: expect.stringMatching(/^ans_/),
          object: 'meeting_answer',
          question: { id: q.publicId, text: q.text, type: q.type, order: q.position },
          answer: `Resposta ${q.position}`,
          updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        })),
      );
      expect(res.body.data.map((x: { question: { order: number } }) => x.question.order)).toEqual([1, 2, 3]);
      expect(openapi.errors(`${c.path}/{${c.kind}_id}/answers`, res)).toEqual([]);
    });

    it('GET …/answers is an empty list for a record without a template', async () => {
      const bare = await a.factory.recording(c.kind, { owner: a.owner });
      const res = await get(a, `${c.path}/${bare.publicId}/answers`).expect(200);
      expect(res.body.data).toEqual([]);
      const detail = await get(a, `${c.path}/${bare.publicId}`).expect(200);
      expect(detail.body.data).toMatchObject({
        template: null,
        enablement: null,
        tags: [],
        competitors: [],
        accounts: [],
        skill_scores: [],
      });
      expect(detail.body.data.owner.team).toEqual(expect.objectContaining({ is_default: true }));
    });
  });

  describe('transcript states', () => {
    it.each(TRANSCRIPT_STATES)('GET …/transcript for a record whose transcript is %s', async (state) => {
      const record = await a.factory.recording(c.kind, { owner: a.owner, transcript: state });
      const res = await get(a, `${c.path}/${record.publicId}/transcript`).expect(200);
      const t = res.body.data;
      expect(t.object).toBe('transcript');
      expect(t.meeting_id).toBe(record.publicId);
      if (state === 'original' || state === 'enhanced') {
        expect(t).toMatchObject({ available: true, status: 'completed', variant: state });
        expect(t.utterances[0].text).toContain(state);
        expect(t.utterances[1]).toEqual({ speaker: null, text: 'Bom dia.', start_ms: 1600, end_ms: 2400 });
        expect(t.created_at).toEqual(expect.any(String));
      } else {
        expect(t).toEqual({
          object: 'transcript',
          meeting_id: record.publicId,
          available: false,
          status: state,
          variant: null,
          utterances: [],
          created_at: null,
          updated_at: null,
        });
      }
      const summary = (await get(a, `${c.path}/${record.publicId}`).expect(200)).body.data.transcript;
      expect(summary).toEqual({ available: t.available, status: t.status });
      expect(openapi.errors(`${c.path}/{${c.kind}_id}/transcript`, res)).toEqual([]);
    });
  });

  describe('evaluation states', () => {
    it.each(EVALUATION_STATES)('GET …/evaluations/overall when the evaluation is %s', async (state) => {
      const record = await a.factory.recording(c.kind, { owner: a.owner, evaluation: state });
      const res = await get(a, `${c.path}/${record.publicId}/evaluations/overall`).expect(200);
      const e = res.body.data;
      expect(e.object).toBe('overall_meeting_evaluation');
      expect(e.meeting_id).toBe(record.publicId);
      if (state === 'none' || state === 'not_started') {
        expect(e).toEqual({
          id: null,
          object: 'overall_meeting_evaluation',
          meeting_id: record.publicId,
          status: 'not_started',
          score: null,
          justification: null,
          created_at: null,
          updated_at: null,
        });
      } else {
        expect(e).toMatchObject({
          id: expect.stringMatching(/^eval_/),
          status: state,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        });
        expect(e.score === null).toBe(state !== 'completed');
      }
      const summary = (await get(a, `${c.path}/${record.publicId}`).expect(200)).body.data.overall_evaluation;
      expect(summary).toEqual({ status: e.status, justification: e.justification });
      expect(openapi.errors(`${c.path}/{${c.kind}_id}/evaluations/overall`, res)).toEqual([]);
    });
  });

  describe('not found', () => {
    let mine: Ref;
    let theirs: Ref;
    let otherKind: Ref;

    beforeAll(async () => {
      mine = await a.factory.recording(c.kind, { owner: a.owner });
      theirs = await b.factory.recording(c.kind, { owner: b.owner });
      otherKind = await a.factory.recording(c.other.kind, { owner: a.owner });
    });

    it.each(['', '/evaluations/overall', '/answers', '/transcript'])(
      'answers …%s identically for absent, foreign, wrong-prefix and malformed ids',
      async (suffix) => {
        await get(a, `${c.path}/${mine.publicId}${suffix}`).expect(200);
        const ids = () => [
          theirs.publicId,
          otherKind.publicId,
          `${c.prefix}0000000000000000000000`,
          'nope',
          `${c.prefix}${'x'.repeat(200)}`,
          encodeURIComponent("mtg_' OR 1=1 --"),
        ];
        const bodies = [];
        for (const id of ids()) {
          const res = await get(a, `${c.path}/${id}${suffix}`);
          expectError(res, 404, 'RESOURCE_NOT_FOUND');
          bodies.push({ ...res.body.error, request_id: undefined });
        }
        expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1);
      },
    );

    it('lets company B read its own record', async () => {
      await get(b, `${c.path}/${theirs.publicId}`).expect(200);
    });
  });

  describe('list', () => {
    let t: Tenant;
    const base = new Date('2026-03-01T12:00:00.000Z');
    const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000);
    let records: Ref[];

    beforeAll(async () => {
      t = await tenant();
      const other = await t.factory.user({ email: 'outro.vendedor@example.com' });
      // created_at 1..6 minutes after base; meeting_at in reverse order.
      const specs = [
        { owner: t.owner, mediaType: 'video', audience: 'external', transcript: 'original' },
        { owner: other, mediaType: 'audio', audience: 'internal', transcript: 'processing' },
        { owner: t.owner, mediaType: 'audio', audience: 'external', transcript: 'enhanced' },
        { owner: other, mediaType: 'video', audience: 'internal', transcript: 'not_started' },
        { owner: t.owner, mediaType: 'video', audience: 'internal', transcript: 'failed' },
        { owner: other, mediaType: 'audio', audience: 'external', transcript: 'original' },
      ] as const;
      records = [];
      for (const [i, s] of specs.entries()) {
        records.push(await t.factory.recording(c.kind, { ...s, createdAt: at(i + 1), meetingAt: at(100 - i) }));
      }
      await t.factory.recording(c.other.kind, { owner: t.owner, createdAt: at(3) });
    });

    const ids = async (query: string) => (await get(t, `${c.path}?${query}`).expect(200)).body.data.map((r: { id: string }) => r.id);
    const pick = (...indexes: number[]) => indexes.map((i) => records[i].publicId);

    it('lists only this collection of this company, by created_at then id, in the list envelope', async () => {
      const res = await get(t, c.path).expect(200);
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(pick(0, 1, 2, 3, 4, 5));
      expect(res.body.pagination).toEqual({ limit: 50, has_more: false, next_cursor: null });
      expect(openapi.errors(c.path, res)).toEqual([]);
    });

    it.each([
      ['created_after (exclusive)', () => `created_after=${encodeURIComponent(at(2).toISOString())}`, [2, 3, 4, 5]],
      ['created_before (exclusive)', () => `created_before=${encodeURIComponent(at(3).toISOString())}`, [0, 1]],
      [
        'created_after and created_before',
        () => `created_after=${at(1).toISOString()}&created_before=${at(4).toISOString()}`.replace(/\+/g, '%2B'),
        [1, 2],
      ],
      ['created_after with another offset', () => 'created_after=2026-03-01T09:04:00-03:00', [4, 5]],
      ['meeting_after (exclusive)', () => `meeting_after=${at(97).toISOString()}`, [0, 1, 2]],
      ['meeting_before (exclusive)', () => `meeting_before=${at(97).toISOString()}`, [4, 5]],
      ['owner_email, case-insensitive', () => 'owner_email=OUTRO.Vendedor%40EXAMPLE.com', [1, 3, 5]],
      ['type=video', () => 'type=video', [0, 3, 4]],
      ['type=audio', () => 'type=audio', [1, 2, 5]],
      ['audience=internal', () => 'audience=internal', [1, 3, 4]],
      ['audience=external', () => 'audience=external', [0, 2, 5]],
      ['has_transcript=true', () => 'has_transcript=true', [0, 2, 5]],
      ['has_transcript=false', () => 'has_transcript=false', [1, 3, 4]],
      ['several filters together', () => 'type=audio&audience=external&has_transcript=true&owner_email=outro.vendedor%40example.com', [5]],
      ['an owner email nobody has', () => 'owner_email=ninguem%40example.com', []],
    ])('filters by %s', async (_name, query, expected) => {
      expect(await ids(query())).toEqual(pick(...(expected as number[])));
    });

    it('owner_email takes every user with that address, merged in order, page after page', async () => {
      const u = await tenant();
      const [a, b] = [await u.factory.user({ email: 'dupla@example.com' }), await u.factory.user({ email: 'Dupla@Example.com' })];
      const mine = [];
      for (let i = 0; i < 7; i++) {
        mine.push(await u.factory.recording(c.kind, { owner: i % 3 === 0 ? b : a, createdAt: at(10 + 2 * i) }));
        await u.factory.recording(c.kind, { owner: u.owner, createdAt: at(11 + 2 * i) }); // someone else's, in between
      }
      for (const limit of [1, 2, 3, 100]) {
        const { ids: seen } = await traverse((url) => get(u, url), `${c.path}?owner_email=dupla%40example.com`, [limit]);
        expect(seen).toEqual(mine.map((r) => r.publicId));
      }
    });

    it.each([
      ['limit=0', 'INVALID_LIMIT'],
      ['limit=101', 'INVALID_LIMIT'],
      ['limit=abc', 'INVALID_LIMIT'],
      ['limit=1.5', 'INVALID_LIMIT'],
      ['created_after=yesterday', 'INVALID_DATETIME'],
      ['created_after=2026-03-01T12:00:00', 'INVALID_DATETIME'],
      ['meeting_before=2026-03-01', 'INVALID_DATETIME'],
      ['created_after=2026-03-02T00:00:00Z&created_before=2026-03-01T00:00:00Z', 'INVALID_FILTER'],
      ['created_after=2026-03-01T00:00:00Z&created_before=2026-03-01T00:00:00Z', 'INVALID_FILTER'],
      ['meeting_after=2026-03-02T00:00:00Z&meeting_before=2026-03-01T00:00:00Z', 'INVALID_FILTER'],
      ['type=text', 'INVALID_FILTER'],
      ['audience=everyone', 'INVALID_FILTER'],
      ['has_transcript=yes', 'INVALID_FILTER'],
      ['has_transcript=TRUE', 'INVALID_FILTER'],
      ['owner_email=not-an-email', 'INVALID_FILTER'],
      ['type=video&type=audio', 'INVALID_REQUEST'],
      ['type=', 'INVALID_REQUEST'],
      ['sort=title', 'INVALID_REQUEST'],
      ['cursor=garbage', 'INVALID_CURSOR'],
    ])('answers %s with 400 %s', async (query, code) => {
      const res = await get(t, `${c.path}?${query}`);
      expectError(res, 400, code);
      expect(openapi.errors(c.path, res)).toEqual([]);
    });
  });

  describe('pagination', () => {
    let t: Tenant;

    beforeAll(async () => {
      t = await tenant();
      await t.factory.bulk(c.kind, 230, t.owner, new Date('2026-01-01T00:00:00Z'));
      // A run of identical created_at values: the id breaks the tie.
      await t.factory.bulk(c.kind, 40, t.owner, new Date('2026-06-01T00:00:00Z'), { sameCreatedAt: true });
      await t.factory.bulk(c.other.kind, 25, t.owner, new Date('2026-01-01T00:00:00Z'));
    });

    it('visits every record exactly once, in order, with limits changing between pages', async () => {
      const all = (
        await db.query(`SELECT public_id FROM recordings WHERE company_id = $1 AND kind = $2 ORDER BY created_at, id`, [
          t.company.id,
          c.kind,
        ])
      ).map((r: { public_id: string }) => r.public_id);
      expect(all).toHaveLength(270);
      const { ids, pages } = await traverse((url) => get(t, url), c.path, [37, 100, 1, 50]);
      expect(ids).toEqual(all);
      expect(pages).toBeGreaterThan(5);
    });

    it('ends with has_more false and next_cursor null exactly on the last page', async () => {
      const first = await get(t, `${c.path}?limit=100&has_transcript=true`).expect(200);
      const expected = (
        await db.query(
          `SELECT count(*)::int AS n FROM recordings WHERE company_id = $1 AND kind = $2 AND transcript_status = 'completed'`,
          [t.company.id, c.kind],
        )
      )[0].n;
      expect(first.body.data).toHaveLength(expected);
      expect(first.body.pagination).toEqual({ limit: 100, has_more: false, next_cursor: null });
      const { ids } = await traverse((url) => get(t, url), `${c.path}?has_transcript=true`, [expected]);
      expect(ids).toHaveLength(expected);
      const exact = await get(t, `${c.path}?limit=${expected - 1}&has_transcript=true`).expect(200);
      expect(exact.body.pagination.has_more).toBe(true);
    });

    it('pages filtered lists with the filter kept in the cursor', async () => {
      const filtered = await traverse((url) => get(t, url), `${c.path}?type=video&audience=external`, [9]);
      const expected = (
        await db.query(
          `SELECT public_id FROM recordings WHERE company_id = $1 AND kind = $2 AND media_type = 'video' AND audience = 'external' ORDER BY created_at, id`,
          [t.company.id, c.kind],
        )
      ).map((r: { public_id: string }) => r.public_id);
      expect(filtered.ids).toEqual(expected);
    });

    describe('cursors', () => {
      let cursor: string;

      beforeAll(async () => {
        cursor = (await get(t, `${c.path}?limit=10&type=video`).expect(200)).body.pagination.next_cursor;
        expect(cursor).toMatch(/^cur_[A-Za-z0-9_-]+$/);
      });

      it('continues with the same filters and any limit', async () => {
        await get(t, `${c.path}?limit=3&type=video&cursor=${cursor}`).expect(200);
      });

      it('answers 400 INVALID_CURSOR for an edited cursor', async () => {
        for (const position of [4, 10, cursor.length - 1]) {
          const ch = cursor[position] === 'A' ? 'B' : 'A';
          const edited = cursor.slice(0, position) + ch + cursor.slice(position + 1);
          expectError(await get(t, `${c.path}?limit=10&type=video&cursor=${edited}`), 400, 'INVALID_CURSOR');
        }
      });

      it('answers 400 INVALID_CURSOR when a filter changes mid-traversal', async () => {
        expectError(await get(t, `${c.path}?limit=10&type=audio&cursor=${cursor}`), 400, 'INVALID_CURSOR');
        expectError(await get(t, `${c.path}?limit=10&cursor=${cursor}`), 400, 'INVALID_CURSOR');
        expectError(await get(t, `${c.path}?limit=10&type=video&audience=internal&cursor=${cursor}`), 400, 'INVALID_CURSOR');
      });

      it('answers 400 INVALID_CURSOR for a cursor of the other collection or of another company', async () => {
        expectError(await get(t, `${c.other.path}?limit=10&type=video&cursor=${cursor}`), 400, 'INVALID_CURSOR');
        expectError(await get(a, `${c.path}?limit=10&type=video&cursor=${cursor}`), 400, 'INVALID_CURSOR');
      });

      it('reveals no internal id or filter value in the cursor', async () => {
        const decoded = Buffer.from(cursor.slice(4), 'base64url').toString('latin1');
        expect(decoded).not.toContain('video');
        expect(decoded).not.toMatch(/\d{4}-\d\d-\d\d/);
      });
    });
  });

  describe('scopes', () => {
    let record: Ref;
    beforeAll(async () => {
      record = await a.factory.recording(c.kind, { owner: a.owner, transcript: 'original' });
    });

    it(`reads with ${c.scope} alone, except the transcript`, async () => {
      const token = await tokenFor(http, await createClient(db, a.company, { scopes: [c.scope] }));
      await get(token, c.path).expect(200);
      await get(token, `${c.path}/${record.publicId}`).expect(200);
      await get(token, `${c.path}/${record.publicId}/answers`).expect(200);
      await get(token, `${c.path}/${record.publicId}/evaluations/overall`).expect(200);
      const res = await get(token, `${c.path}/${record.publicId}/transcript`);
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toContain(`scope="${c.scope} transcriptions.read"`);
    });

    it('refuses every route to a token of the other collection scope, even with transcriptions.read', async () => {
      const otherScope = c.scope === 'meetings.read' ? 'calls.read' : 'meetings.read';
      const token = await tokenFor(http, await createClient(db, a.company, { scopes: [otherScope, 'transcriptions.read'] }));
      for (const suffix of [
        '',
        `/${record.publicId}`,
        `/${record.publicId}/answers`,
        `/${record.publicId}/evaluations/overall`,
        `/${record.publicId}/transcript`,
      ]) {
        expectError(await get(token, `${c.path}${suffix}`), 403, 'INSUFFICIENT_SCOPE');
      }
    });

    it('reads the transcript with the collection scope and transcriptions.read together', async () => {
      const token = await tokenFor(http, await createClient(db, a.company, { scopes: [c.scope, 'transcriptions.read'] }));
      const res = await get(token, `${c.path}/${record.publicId}/transcript`).expect(200);
      expect(res.body.data.available).toBe(true);
    });

    it('answers 401 without a token and 403 before 404 for a missing scope', async () => {
      expectError(await http.get(`${c.path}/${record.publicId}`), 401, 'MISSING_ACCESS_TOKEN');
      const token = await tokenFor(http, await createClient(db, a.company, { scopes: ['emails.read'] }));
      expectError(await get(token, `${c.path}/nope`), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('query budget', () => {
    it('loads a page of 1 and a page of 100 fully-related records with the same number of SQL queries', async () => {
      const t = await tenant();
      const template = await t.factory.template([
        { text: 'P1', type: 'text' },
        { text: 'P2', type: 'option' },
      ]);
      const [tag, competitor, account, skill] = [
        await t.factory.tag(),
        await t.factory.competitor(),
        await t.factory.account(),
        await t.factory.skill(),
      ];
      await db.transaction(async (m) => {
        const f = new RecordingsFactory(m, t.company.id);
        for (let i = 0; i < 100; i++) {
          await f.recording(c.kind, {
            owner: t.owner,
            template,
            tags: [tag],
            competitors: [competitor],
            accounts: [account],
            transcript: 'enhanced',
            evaluation: 'completed',
            enablement: { speakers: [t.owner] },
            skillScores: [{ user: t.owner, skill, score: 3 }],
          });
        }
      });
      const spy = jest.spyOn(Client.prototype, 'query'); // every statement of every pool, TypeORM's or not
      const count = async (limit: number, include = '') => {
        spy.mockClear();
        const res = await get(t, `${c.path}?limit=${limit}${include ? `&include=${include}` : ''}`).expect(200);
        expect(res.body.data).toHaveLength(limit);
        expect(res.body.data[limit - 1].tags).toHaveLength(1);
        if (include) expect(Object.keys(res.body.data[limit - 1].included)).toEqual(include.split(','));
        return spy.mock.calls.length;
      };
      try {
        const one = await count(1);
        const hundred = await count(100);
        expect(hundred).toBe(one);
        expect(one).toBe(4); // BEGIN + the client's state + tenant (one round trip), the page, COMMIT, the audit row
        // Every part comes in the page's own statement: no statement more, whatever the parts.
        expect(await count(100, 'evaluation,answers,transcript')).toBe(one);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
