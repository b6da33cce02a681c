import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { VolumeSeeder } from '../../src/seeding/volume-seeder';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { derivedFieldDisagreements } from '../support/derived-fields';
import { traverse } from '../support/http';
import { OpenApiResponses } from '../support/openapi-responses';
import { createTestApp, ownerDataSource } from '../support/test-app';

describe('seed:volume, read back through the API', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let token: string;
  const progress: Array<[string, number, number]> = [];
  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    const company = await createCompany(db);
    const seeder = new VolumeSeeder(db, new CompaniesService(new CompaniesRepository(db)));
    const result = await seeder.seed({ company: company.publicId, meetings: 120, calls: 80, emails: 30, chats: 20, messages: 4 }, (...p) =>
      progress.push(p),
    );
    expect(result).toMatchObject({ company_id: company.publicId, meetings: 120, calls: 80, emails: 30, chats: 20, messages: 200 });
    token = await tokenFor(http, await createClient(db, company, { scopes: [...ALL_SCOPES] }));
  }, 60_000);
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('tells the truth: every derived field agrees, through the API, with what it derives from', async () => {
    expect(await derivedFieldDisagreements(get)).toEqual([]);
  });

  it('reports progress per batch up to each total', () => {
    expect(progress.filter(([what]) => what === 'meetings').at(-1)).toEqual(['meetings', 120, 120]);
    expect(progress.filter(([what]) => what === 'chats').at(-1)).toEqual(['chats', 20, 20]);
  });

  it.each([
    ['/v1/meetings', 120],
    ['/v1/calls', 80],
    ['/v1/emails', 30],
    ['/v1/chat', 20],
  ])('%s lists every seeded record', async (url, count) => {
    const { ids } = await traverse(get, url, [100]);
    expect(new Set(ids).size).toBe(count);
  });

  it('gives records their relations in every state, valid against the OpenAPI schemas', async () => {
    const openapi = await OpenApiResponses.load(http);
    const res = await get('/v1/meetings?limit=100').expect(200);
    expect(openapi.errors('/v1/meetings', res)).toEqual([]);
    const records = res.body.data as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(new Set(records.map((r) => r.transcript.status))).toEqual(new Set(['completed', 'processing', 'not_started', 'failed']));
    expect(new Set(records.map((r) => r.overall_evaluation.status))).toEqual(new Set(['completed', 'processing', 'not_started', 'failed']));
    expect(records.some((r) => r.template?.answers.length === 5)).toBe(true);
    expect(records.every((r) => r.accounts.length === 1)).toBe(true);
    expect(records.some((r) => r.enablement && r.enablement.speaking_duration.users.length === 1)).toBe(true);
    expect(records.some((r) => r.skill_scores.length === 1)).toBe(true);
    const readable = records.find((r) => r.transcript.available)!;
    const transcript = await get(`/v1/meetings/${readable.id}/transcript`).expect(200);
    expect(transcript.body.data.utterances.length).toBeGreaterThan(0);
  });

  it('spreads instants over time and gives every owner both audiences and both media, so filters select real shares', async () => {
    const { records } = await traverse(get, '/v1/meetings', [100]);
    // Each record draws its own instant (not one per batch).
    expect(new Set(records.map((r) => r.meeting_at)).size).toBe(records.length);
    expect(new Set(records.map((r) => r.created_at)).size).toBe(records.length);
    const byOwner = new Map<string, Set<string>>();
    for (const r of records) byOwner.set(r.owner.email, (byOwner.get(r.owner.email) ?? new Set<string>()).add(r.audience).add(r.type));
    expect(byOwner.size).toBe(20);
    for (const seen of byOwner.values()) expect([...seen].sort()).toEqual(['audio', 'external', 'internal', 'video']);
    // One owner, an audience and a time bound select exactly that owner's external records after the bound.
    const [email] = byOwner.keys();
    const external = records.filter((r) => r.owner.email === email && r.audience === 'external');
    expect(external.length).toBeGreaterThanOrEqual(4);
    const bound = external.map((r) => r.meeting_at as string).sort()[1];
    const query = new URLSearchParams({ owner_email: email, audience: 'external', meeting_after: bound });
    const filtered = (await get(`/v1/meetings?limit=100&${query.toString()}`).expect(200)).body.data as typeof records;
    expect(filtered.map((r) => r.id)).toEqual(external.filter((r) => r.meeting_at > bound).map((r) => r.id));
    expect(filtered.length).toBe(external.length - 2);
  });

  it('gives every conversation its messages, in order, with derived activity', async () => {
    const emails = (await get('/v1/emails?limit=100').expect(200)).body.data;
    expect(emails.every((c: { message_count: number }) => c.message_count === 4)).toBe(true);
    const messages = (await get(`/v1/emails/${emails[0].id}/messages`).expect(200)).body.data;
    expect(messages.map((m: { direction: string }) => m.direction)).toEqual(['outbound', 'inbound', 'outbound', 'inbound']);
    expect(emails[0].last_message_at).toBe(messages[3].sent_at);
    const chats = (await get('/v1/chat?limit=100').expect(200)).body.data;
    const chatMessages = (await get(`/v1/chat/${chats[0].id}/messages`).expect(200)).body.data;
    expect(chatMessages).toHaveLength(4);
  });
});
