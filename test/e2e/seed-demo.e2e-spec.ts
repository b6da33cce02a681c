import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { loadConfig } from '../../src/config/app-config';
import { DemoCredentials, DemoSeeder } from '../../src/seeding/demo-seeder';
import { tokenFor } from '../support/credentials';
import { derivedFieldDisagreements } from '../support/derived-fields';
import { traverse } from '../support/http';
import { OpenApiResponses } from '../support/openapi-responses';
import { createTestApp, ownerDataSource } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The distinct values `pick` takes over `items`, sorted. */
const kinds = (items: Json[], pick: (item: Json) => unknown) =>
  [...new Set(items.map((i) => JSON.stringify(pick(i))))].map((v) => JSON.parse(v)).sort();

describe('seed:demo, read back through the API', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let openapi: OpenApiResponses;
  let demo: DemoCredentials;
  let token: string;
  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);
  const all = async (url: string) => {
    const items: Json[] = [];
    await traverse(
      (u) =>
        get(u).expect((res) => {
          items.push(...res.body.data);
        }),
      url,
      [100],
    );
    return items;
  };

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    openapi = await OpenApiResponses.load(http);
    demo = await DemoSeeder.over(db, loadConfig({ NODE_ENV: 'test' })).seed();
    token = await tokenFor(http, { clientId: demo.client_id, clientSecret: demo.client_secret, scopes: [] });
  }, 60_000);
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('tells the truth: every derived field agrees, through the API, with what it derives from', async () => {
    expect(await derivedFieldDisagreements(get)).toEqual([]);
  });

  it('creates a client holding every scope that reads data, and not the access log’s nor webhooks.manage', async () => {
    const res = await get('/v1/context').expect(200);
    expect(res.body.data.company.id).toBe(demo.company_id);
    expect([...res.body.data.scopes].sort()).toEqual(ALL_SCOPES.filter((s) => s !== 'audit.read' && s !== 'webhooks.manage').sort());
  });

  describe.each(['meetings', 'calls'])('/v1/%s', (collection) => {
    let records: Json[];
    beforeAll(async () => {
      records = await all(`/v1/${collection}`);
    });

    it('holds records in every documented state, each valid against the OpenAPI schema', async () => {
      expect(records.length).toBeGreaterThanOrEqual(25);
      expect(kinds(records, (r) => r.transcript.status)).toEqual(['completed', 'failed', 'not_started', 'processing']);
      expect(kinds(records, (r) => r.overall_evaluation.status)).toEqual(['completed', 'failed', 'not_started', 'processing']);
      expect(kinds(records, (r) => r.audience)).toEqual(['external', 'internal']);
      expect(kinds(records, (r) => r.no_show)).toEqual([false, true]);
      expect(kinds(records, (r) => r.template === null)).toEqual([false, true]);
      expect(kinds(records, (r) => r.enablement === null)).toEqual([false, true]);
      expect(kinds(records, (r) => r.enablement?.meeting_type === null)).toEqual([false, true]);
      expect(kinds(records, (r) => r.skill_scores.length > 0)).toEqual([false, true]);
      expect(kinds(records, (r) => r.competitors.length > 0)).toEqual([false, true]);
      expect(kinds(records, (r) => r.tags.length > 0)).toEqual([false, true]);
      expect(records.some((r) => r.accounts.length > 1)).toBe(true);
      expect(records.every((r) => r.customer_questions.length > 0)).toBe(true);
      // Outside participants exactly on external records (internal ones had nobody from outside).
      expect(records.every((r) => r.participants.length > 0 === (r.audience === 'external'))).toBe(true);
      if (collection === 'meetings') {
        expect(kinds(records, (r) => r.type)).toEqual(['audio', 'video']);
        expect(records.every((r) => r.bot_history.length > 0)).toBe(true);
        expect(records.every((r) => r.participants.every((p: Json) => p.email))).toBe(true);
      } else {
        expect(kinds(records, (r) => r.type)).toEqual(['audio']);
        expect(records.every((r) => r.participants.every((p: Json) => p.phone))).toBe(true);
      }
      // Brazilian data: CNPJs in several formattings, and one account without.
      const cnpjs = records.flatMap((r) => r.accounts.map((a: Json) => a.cnpj));
      expect(cnpjs).toContain(null);
      expect(new Set(cnpjs.filter(Boolean).map((c: string) => c.replace(/\d/g, '9'))).size).toBeGreaterThanOrEqual(3);
      const res = await get(`/v1/${collection}?limit=100`).expect(200);
      expect(openapi.errors(`/v1/${collection}`, res)).toEqual([]);
    });

    it('serves realistic transcripts in both variants, and every other state unavailable', async () => {
      const variants = new Set<string>();
      for (const record of records) {
        const res = await get(`/v1/${collection}/${record.id}/transcript`).expect(200);
        expect(openapi.errors(`/v1/${collection}/{${collection === 'meetings' ? 'meeting_id' : 'call_id'}}/transcript`, res)).toEqual([]);
        const t = res.body.data;
        expect(t.available).toBe(record.transcript.available);
        if (!t.available) continue;
        variants.add(t.variant);
        expect(t.utterances.length).toBeGreaterThanOrEqual(20);
        expect(t.utterances.length).toBeLessThanOrEqual(300);
        expect(t.utterances.some((u: Json) => u.speaker === null)).toBe(t.utterances.length >= 17);
        expect(new Set(t.utterances.map((u: Json) => u.speaker).filter(Boolean)).size).toBe(2);
        for (const [i, u] of t.utterances.entries()) {
          expect(u.end_ms).toBeGreaterThan(u.start_ms);
          if (i > 0) expect(u.start_ms).toBeGreaterThanOrEqual(t.utterances[i - 1].end_ms);
        }
      }
      expect([...variants].sort()).toEqual(['enhanced', 'original']);
    });

    it('answers template questions of every type', async () => {
      const withTemplate = records.find((r) => r.template !== null)!;
      const res = await get(`/v1/${collection}/${withTemplate.id}/answers`).expect(200);
      expect(res.body.data.map((a: Json) => a.question.type).sort()).toEqual(['boolean', 'multi_select', 'number', 'option', 'text']);
    });
  });

  describe('/v1/emails', () => {
    it('holds threads inbound and outbound, with attachments, CC, accounts, and one shared by two mailboxes', async () => {
      const conversations = await all('/v1/emails');
      expect(conversations.length).toBeGreaterThanOrEqual(8);
      expect(conversations.some((c) => c.mailboxes.length === 2)).toBe(true);
      expect(conversations.some((c) => c.mailboxes.some((m: Json) => m.owner === null))).toBe(true);
      expect(kinds(conversations, (c) => c.has_attachments)).toEqual([false, true]);
      expect(kinds(conversations, (c) => c.last_message_direction)).toEqual(['inbound', 'outbound']);
      expect(conversations.every((c) => c.accounts.length === 1)).toBe(true);
      const shared = conversations.find((c) => c.mailboxes.length === 2)!;
      const messages = await all(`/v1/emails/${shared.id}/messages`);
      expect(messages).toHaveLength(shared.message_count);
      expect(messages.some((m) => m.cc.length > 0)).toBe(true);
      expect(messages[0].attachments[0]).toEqual({
        filename: 'Proposta_Acme_2026.pdf',
        mime_type: 'application/pdf',
        size_bytes: expect.any(Number),
      });
    });
  });

  describe('/v1/chat', () => {
    it('holds a group, a deleted chat, edited and revoked messages, audio with transcription and media', async () => {
      const chats = await all('/v1/chat');
      expect(chats.length).toBeGreaterThanOrEqual(6);
      expect(chats.some((c) => c.is_group && c.contact.phone === null)).toBe(true);
      expect(chats.some((c) => c.deleted_at !== null && c.deleted_reason !== null)).toBe(true);
      const messages = (await Promise.all(chats.map((c) => all(`/v1/chat/${c.id}/messages`)))).flat();
      expect(messages.some((m) => m.edited_at !== null && m.text !== null)).toBe(true);
      const revoked = messages.filter((m) => m.deleted_at !== null);
      expect(revoked.length).toBeGreaterThan(0);
      expect(revoked.every((m) => m.text === null && m.media === null && m.transcription === null)).toBe(true);
      expect(messages.some((m) => m.type === 'audio' && m.transcription && m.media?.mime_type === 'audio/ogg')).toBe(true);
      expect(messages.some((m) => m.type !== 'audio' && m.media?.file_name)).toBe(true);
      expect(kinds(messages, (m) => m.direction)).toEqual(['inbound', 'outbound']);
    });
  });
});
