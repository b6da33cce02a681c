import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { createTenant, Tenant } from '../support/tenant';
import { ChangeEntry, FeedReader, idsOf } from '../support/feed';
import { expectError } from '../support/http';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';

const ALL: Scope[] = [...ALL_SCOPES];

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('GET /v1/changes', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  const http = () => request(app.getHttpServer());

  const tenant = (scopes: Scope[] = ALL): Promise<Tenant> => createTenant(db, http(), scopes);

  /** A reader of `t`'s feed that starts at the head: it sees only what happens from now on. */
  async function readerFromNow(t: Tenant, query = ''): Promise<FeedReader> {
    const res = await http()
      .get(`/v1/changes?start=now${query ? `&${query}` : ''}`)
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    expect(res.body).toMatchObject({ data: [], pagination: { limit: 100, has_more: false } });
    const reader = new FeedReader(http, t.token, query);
    reader.cursor = res.body.pagination.next_cursor;
    return reader;
  }

  /** Polls until an entry for `objectId` comes (the feed waits for running transactions). */
  async function until(reader: FeedReader, predicate: (e: ChangeEntry) => boolean): Promise<ChangeEntry[]> {
    const got: ChangeEntry[] = [];
    await eventually(async () => {
      got.push(...(await reader.poll()));
      return got.some(predicate);
    }, 30_000);
    return got;
  }

  /** A transcript completing as a capture system writes it: its rows and the record's status, in one transaction. */
  const completeTranscript = (t: Tenant, recording: { id: string }, variant: 'original' | 'enhanced') =>
    db.transaction(async (m) => {
      await m.query(`INSERT INTO transcripts (company_id, recording_id, variant, utterances) VALUES ($1, $2, $3, '[]')`, [
        t.company.id,
        recording.id,
        variant,
      ]);
      await m.query(`UPDATE recordings SET transcript_status = 'completed' WHERE id = $1`, [recording.id]);
    });

  const ownerClient = async () => {
    const client = new Client({ connectionString: process.env.TEST_MIGRATION_DATABASE_URL });
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([db.destroy(), app.close()]);
  });

  it('lists every object from the beginning, each entry in the documented shape, with a cursor that is never null', async () => {
    const t = await tenant();
    const meeting = await t.people.recording('meeting', { owner: t.seller });
    const call = await t.people.recording('call', { owner: t.seller });
    const email = await t.conversations.thread(t.mailbox, 2, daysAgo(3));
    const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
    const reader = new FeedReader(http, t.token);
    const entries = await until(reader, (e) => e.object_id === chat.publicId);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['action', 'changed', 'committed_at', 'id', 'object', 'object_id', 'parent_id']);
      expect(e.id).toMatch(/^chg_[0-9A-Za-z]{22}$/);
      expect(e.committed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
    expect(idsOf(entries, 'meeting')).toContain(meeting.publicId);
    expect(idsOf(entries, 'call')).toContain(call.publicId);
    expect(idsOf(entries, 'email')).toContain(email.conversation.publicId);
    expect(entries.filter((e) => e.object === 'email_message' && e.parent_id === email.conversation.publicId)).toHaveLength(2);
    expect(idsOf(entries, 'chat')).toContain(chat.publicId);
    expect(entries.find((e) => e.object_id === meeting.publicId)).toMatchObject({ action: 'created', changed: [], parent_id: null });
    // Nothing new: an empty page, and a cursor still.
    const idle = await http().get(`/v1/changes?cursor=${reader.cursor}`).set('Authorization', `Bearer ${t.token}`).expect(200);
    expect(idle.body).toMatchObject({ data: [], pagination: { limit: 100, has_more: false, next_cursor: expect.stringMatching(/^cur_/) } });
  });

  it('names the parts to re-read: details, transcript, evaluation, answers, messages; and moves updated_at', async () => {
    const t = await tenant();
    const template = await t.people.template([{ text: 'Qual o orçamento?', type: 'text' }]);
    const meeting = await t.people.recording('meeting', { owner: t.seller, template, transcript: 'not_started', evaluation: 'processing' });
    const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(2) }] });
    const reader = await readerFromNow(t);
    const before = await http().get(`/v1/meetings/${meeting.publicId}`).set('Authorization', `Bearer ${t.token}`).expect(200);

    await db.query(`UPDATE recordings SET title = 'Novo título' WHERE id = $1`, [meeting.id]);
    let got = await until(reader, (e) => e.object_id === meeting.publicId);
    expect(got).toEqual([expect.objectContaining({ object: 'meeting', action: 'updated', changed: ['details'] })]);

    await db.query(`UPDATE recording_evaluations SET status = 'completed', score = 80 WHERE recording_id = $1`, [meeting.id]);
    got = await until(reader, (e) => e.object_id === meeting.publicId);
    expect(got).toEqual([expect.objectContaining({ action: 'updated', changed: ['details', 'evaluation'] })]);

    await db.query(`UPDATE recording_answers SET answer = 'R$ 10 mil' WHERE recording_id = $1`, [meeting.id]);
    got = await until(reader, (e) => e.object_id === meeting.publicId);
    expect(got).toEqual([expect.objectContaining({ action: 'updated', changed: ['details', 'answers'] })]);

    // A transcript completing: its rows and the record's status, in one transaction: one entry.
    await completeTranscript(t, meeting, 'original');
    got = await until(reader, (e) => e.object_id === meeting.publicId);
    expect(got).toEqual([expect.objectContaining({ action: 'updated', changed: ['details', 'transcript'] })]);

    const after = await http().get(`/v1/meetings/${meeting.publicId}`).set('Authorization', `Bearer ${t.token}`).expect(200);
    expect(after.body.data.updated_at > before.body.data.updated_at).toBe(true);

    await t.conversations.chatMessage(chat, { sentAt: new Date() });
    got = await until(reader, (e) => e.object === 'chat_message');
    expect(got).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          object: 'chat',
          object_id: chat.publicId,
          action: 'updated',
          changed: expect.arrayContaining(['messages']),
        }),
        expect.objectContaining({ object: 'chat_message', parent_id: chat.publicId, action: 'created', changed: [] }),
      ]),
    );
  });

  it('never moves past a change whose transaction is still running: the long writer delays the feed, it does not hide its change [waits]', async () => {
    const t = await tenant();
    const [a, b] = [await t.people.recording('meeting', { owner: t.seller }), await t.people.recording('meeting', { owner: t.seller })];
    const reader = await readerFromNow(t);
    const [first, second] = [await ownerClient(), await ownerClient()];
    try {
      await first.query('BEGIN');
      await first.query(`UPDATE recordings SET title = 'A, long transaction' WHERE id = $1`, [a.id]); // takes its transaction id now
      await second.query(`UPDATE recordings SET title = 'B, committed first' WHERE id = $1`, [b.id]);
      // B has committed, but A (an older transaction) may still commit: nothing after A's position is served.
      expect(await reader.poll()).toEqual([]);
      const heldCursor = reader.cursor;
      await first.query('COMMIT');
      const got = await until(reader, (e) => e.object_id === b.publicId);
      expect(idsOf(got)).toEqual([a.publicId, b.publicId]); // commit order of the feed: A's transaction began first
      // The cursor taken while A ran yields A too.
      const replay = new FeedReader(http, t.token);
      replay.cursor = heldCursor;
      expect(idsOf(await replay.poll())).toEqual([a.publicId, b.publicId]);
    } finally {
      await first.query('ROLLBACK').catch(() => undefined);
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('shows late captures: an email message sent a month ago, captured now; a transcript completing on a year-old meeting', async () => {
    const t = await tenant();
    const old = await t.people.recording('meeting', { owner: t.seller, meetingAt: daysAgo(365), createdAt: daysAgo(365) });
    const reader = await readerFromNow(t);
    const late = await t.conversations.email({ mailbox: t.mailbox, sentAt: daysAgo(30) });
    let got = await until(reader, (e) => e.object === 'email_message');
    expect(got).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ object: 'email', object_id: late.conversation.publicId, action: 'created' }),
        expect.objectContaining({ object: 'email_message', parent_id: late.conversation.publicId, action: 'created' }),
      ]),
    );
    await completeTranscript(t, old, 'enhanced');
    got = await until(reader, (e) => e.object_id === old.publicId);
    expect(got).toEqual([expect.objectContaining({ object: 'meeting', action: 'updated', changed: ['details', 'transcript'] })]);
  });

  it('reports a removed record as deleted, and its detail route answers 404', async () => {
    const t = await tenant();
    const call = await t.people.recording('call', { owner: t.seller, transcript: 'original', evaluation: 'completed' });
    const reader = await readerFromNow(t);
    await db.query('DELETE FROM recordings WHERE id = $1', [call.id]);
    const got = await until(reader, (e) => e.object_id === call.publicId);
    expect(got).toEqual([expect.objectContaining({ object: 'call', action: 'deleted', changed: [] })]);
    expectError(await http().get(`/v1/calls/${call.publicId}`).set('Authorization', `Bearer ${t.token}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it("never serves another company's entries [waits]", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const meeting = await b.people.recording('meeting', { owner: b.seller });
    const reader = new FeedReader(http, a.token);
    await eventually(async () => {
      const bReader = new FeedReader(http, b.token);
      return idsOf(await bReader.poll()).includes(meeting.publicId);
    }, 30_000);
    expect(idsOf(await reader.poll())).not.toContain(meeting.publicId);
    expect((await reader.poll()).length).toBe(0);
  });

  it('refuses a cursor of another company (sealed and bound), and counts, limits and audits the feed like every read', async () => {
    const [a, b] = [await tenant(), await tenant()];
    const meeting = await a.people.recording('meeting', { owner: a.seller });
    const reader = new FeedReader(http, a.token);
    await until(reader, (e) => e.object_id === meeting.publicId);
    const forged = await http().get(`/v1/changes?cursor=${reader.cursor}`).set('Authorization', `Bearer ${b.token}`);
    expectError(forged, 400, 'INVALID_CURSOR');
    const res = await http().get('/v1/changes').set('Authorization', `Bearer ${a.token}`).expect(200);
    expect(res.headers['ratelimit-policy']).toMatch(/^"client";q=\d+;w=\d+, "company";q=\d+;w=\d+$/);
    expect(res.headers['ratelimit']).toMatch(/^"client";r=\d+;t=\d+, "company";r=\d+;t=\d+$/);
    expect(res.headers['cache-control']).toBe('no-store');
    const [row] = await db.query(`SELECT route, status, company, resource_ids FROM audit_events WHERE request_id = $1`, [
      res.headers['x-request-id'],
    ]);
    expect(row).toEqual({
      route: 'GET /v1/changes',
      status: 200,
      company: a.company.publicId,
      resource_ids: res.body.data.map((e: ChangeEntry) => e.object_id),
    });
    expect(row.resource_ids).toContain(meeting.publicId);
  });

  describe('types and scopes', () => {
    it('follows the types asked for, and binds the cursor to them', async () => {
      const t = await tenant();
      const reader = await readerFromNow(t, 'types=call');
      const meeting = await t.people.recording('meeting', { owner: t.seller });
      const call = await t.people.recording('call', { owner: t.seller });
      const got = await until(reader, (e) => e.object_id === call.publicId);
      expect(idsOf(got)).toEqual([call.publicId]);
      expect(idsOf(got)).not.toContain(meeting.publicId);
      const res = await http().get(`/v1/changes?types=meeting&cursor=${reader.cursor}`).set('Authorization', `Bearer ${t.token}`);
      expectError(res, 400, 'INVALID_CURSOR');
      // The same set in another order or with repeats is the same binding.
      await http().get(`/v1/changes?types=call,call&cursor=${reader.cursor}`).set('Authorization', `Bearer ${t.token}`).expect(200);
    });

    it('by default follows every type the token can read; message entries need the content scope', async () => {
      const t = await tenant(['emails.read', 'chat.read', 'meetings.read']);
      const thread = await t.conversations.thread(t.mailbox, 1, daysAgo(1));
      const reader = new FeedReader(http, t.token);
      const got = await until(reader, (e) => e.object_id === thread.conversation.publicId);
      expect(got.some((e) => e.object === 'email_message' || e.object === 'chat_message' || e.object === 'call')).toBe(false);
      expectError(await http().get('/v1/changes?types=email_message').set('Authorization', `Bearer ${t.token}`), 403, 'INSUFFICIENT_SCOPE');
      expectError(await http().get('/v1/changes?types=call').set('Authorization', `Bearer ${t.token}`), 403, 'INSUFFICIENT_SCOPE');
    });

    it('refuses a token with none of the readable scopes with 403 INSUFFICIENT_SCOPE', async () => {
      const t = await tenant(['transcriptions.read']);
      const res = await http().get('/v1/changes').set('Authorization', `Bearer ${t.token}`);
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toContain('scope="meetings.read calls.read emails.read chat.read"');
    });

    it.each([
      ['types=meeting,lunch', 'INVALID_FILTER'],
      ['types=MEETING', 'INVALID_FILTER'],
      ['start=yesterday', 'INVALID_FILTER'],
      ['limit=101', 'INVALID_LIMIT'],
      ['cursor=cur_forged', 'INVALID_CURSOR'],
      ['since=2026-01-01T00:00:00Z', 'INVALID_REQUEST'],
    ])('answers %s with 400 %s', async (query, code) => {
      const t = await tenant();
      expectError(await http().get(`/v1/changes?${query}`).set('Authorization', `Bearer ${t.token}`), 400, code);
    });

    it('refuses start together with a cursor (400 INVALID_FILTER)', async () => {
      const t = await tenant();
      const reader = await readerFromNow(t);
      const res = await http().get(`/v1/changes?start=beginning&cursor=${reader.cursor}`).set('Authorization', `Bearer ${t.token}`);
      expectError(res, 400, 'INVALID_FILTER');
    });
  });

  it('pages at most `limit` entries, says has_more, and the default page is 100', async () => {
    const t = await tenant();
    const reader = await readerFromNow(t);
    await t.people.bulk('meeting', 7, t.seller, daysAgo(1));
    await until(reader, () => true);
    const page = new FeedReader(http, t.token);
    const first = await http().get('/v1/changes?limit=3').set('Authorization', `Bearer ${t.token}`).expect(200);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.pagination).toMatchObject({ limit: 3, has_more: true });
    page.cursor = first.body.pagination.next_cursor;
    const rest = await page.poll(2);
    // 7 created; the bulk factory completes some transcripts in a second transaction: entries of their own.
    expect(new Set(idsOf([...first.body.data, ...rest])).size).toBe(7);
  });
});
