import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { ConversationsRepository } from '../../src/conversations/conversations.repository';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { processToken, startServiceProcess } from '../support/service-process';
import { createClient, tokenFor } from '../support/credentials';
import { completeLinesOf, Json, linesOf, openExport, rawBody, seedBigCompany } from '../support/export-stream';
import { FeedReader } from '../support/feed';
import { expectError, traverse } from '../support/http';
import { createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';

const LISTS: Array<[string, string]> = [
  ['meeting', '/v1/meetings'],
  ['call', '/v1/calls'],
  ['email', '/v1/emails'],
  ['chat', '/v1/chat'],
];
const byteOrder = (a: Json, b: Json) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('GET /v1/export', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let base: string;
  let company: Company;
  let token: string;

  const get = (url: string, t = token) => http.get(url).set('Authorization', `Bearer ${t}`);
  const exported = async (query = '', t = token) => {
    const res = await get(`/v1/export${query}`, t).buffer(true).parse(rawBody).expect(200);
    return { res, lines: linesOf(res.body as Buffer) };
  };

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { EXPORT_CONCURRENCY: '1', EXPORT_IDLE_SECONDS: '2' } })]);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    http = request(app.getHttpServer());
    const demo = await DemoSeeder.over(db, loadConfig({ NODE_ENV: 'test' })).seed();
    company = await db.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
    token = await tokenFor(http, await createClient(db, company, { scopes: [...ALL_SCOPES] }));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  /** A company too big for the sockets' buffers, made once. */
  let bigCompanyToken: Promise<string> | undefined;
  const bigCompany = () =>
    (bigCompanyToken ??= seedBigCompany(db).then(async (big) => tokenFor(http, await createClient(db, big, { scopes: [...ALL_SCOPES] }))));

  it('streams every record of every readable collection as its list shows it, in id order, then the trailer; Feed-Cursor in the header and the trailer', async () => {
    const { res, lines } = await exported('?include=evaluation,answers,transcript,messages');
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['ratelimit-policy']).toContain('"export"');
    const trailer = lines.pop()!;
    expect(trailer).toEqual({ object: 'export', records: expect.any(Object), feed_cursor: res.headers['feed-cursor'] });
    let at = 0;
    for (const [type, path] of LISTS) {
      const include = type === 'email' || type === 'chat' ? 'messages' : 'evaluation,answers,transcript';
      const listed = (await traverse(get, `${path}?include=${include}`, [100])).records.sort(byteOrder);
      expect(lines.slice(at, at + listed.length)).toEqual(listed);
      expect(trailer.records[type]).toBe(listed.length);
      at += listed.length;
    }
    expect(at).toBe(lines.length);
    // Both audit rows: the start (before the first byte) and the end, with the count and the outcome.
    const requestId = res.headers['x-request-id'];
    await eventually(async () => (await db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [requestId])).length === 2, 30_000);
    const rows = await db.query(`SELECT query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`, [requestId]);
    expect(rows[0].query.export).toBeUndefined();
    expect(rows[1].query.export).toMatchObject({ outcome: 'complete', records: trailer.records });
  });

  it('types and include choose what comes; after resumes strictly after an id, in later collections too', async () => {
    const { lines } = await exported('?types=chat,call');
    const trailer = lines.pop()!;
    expect(Object.keys(trailer.records)).toEqual(['call', 'chat']);
    expect(lines.every((l) => l.included === undefined)).toBe(true);
    expect(lines.map((l) => l.object)).toEqual([
      ...Array(trailer.records.call).fill('call'),
      ...Array(trailer.records.chat).fill('chat_conversation'),
    ]);
    const cut = lines[3].id;
    const resumed = (await exported(`?types=chat,call&after=${cut}`)).lines;
    resumed.pop();
    expect(resumed).toEqual(lines.slice(4));
  });

  it('a resumed stream (after=) names no feed cursor: no Feed-Cursor header and a null feed_cursor, so the first stream\'s is the only one to follow', async () => {
    const first = await exported('?types=meeting');
    const cursor = first.res.headers['feed-cursor'];
    expect(cursor).toMatch(/^cur_/);
    const firstTrailer = first.lines.pop()!;
    expect(firstTrailer.feed_cursor).toBe(cursor);
    // A change between the two snapshots: after the first cursor, and seen by the resumed stream's own snapshot.
    const renamed = first.lines[first.lines.length - 1].id as string;
    await db.query(`UPDATE recordings SET title = 'Renamed between the snapshots' WHERE company_id = $1 AND public_id = $2`, [
      company.id,
      renamed,
    ]);
    const resumed = await exported(`?types=meeting&after=${first.lines[2].id}`);
    expect(resumed.res.headers['feed-cursor']).toBeUndefined();
    const trailer = resumed.lines.pop()!;
    expect(trailer).toEqual({ object: 'export', records: { meeting: first.lines.length - 3 }, feed_cursor: null });
    expect(resumed.lines.map((l) => l.id)).toEqual(first.lines.slice(3).map((l) => l.id));
    // The first cursor is the one that still names the change made between the snapshots.
    const feed = new FeedReader(() => http, token);
    feed.cursor = String(cursor);
    expect((await feed.poll()).map((e) => e.object_id)).toContain(renamed);
  });

  it('one snapshot: writes committed while it streams are not in it, and the feed from its Feed-Cursor has them', async () => {
    const stream = openExport(base, '/v1/export?types=meeting', token);
    const res = await stream.headed;
    const feedCursor = String(res.headers['feed-cursor']);
    const people = new RecordingsFactory(db, company.id);
    const added = await people.recording('meeting', { owner: await people.user() });
    await db.query(
      `UPDATE recordings SET title = 'Renamed after the snapshot' WHERE company_id = $1 AND kind = 'meeting' AND id = (SELECT min(id) FROM recordings WHERE company_id = $1 AND kind = 'meeting')`,
      [company.id],
    );
    stream.resume();
    const { body, complete } = await stream.ended;
    expect(complete).toBe(true);
    const lines = linesOf(body);
    lines.pop();
    expect(lines.map((l) => l.id)).not.toContain(added.publicId);
    expect(lines.map((l) => l.title)).not.toContain('Renamed after the snapshot');
    const feed = new FeedReader(() => http, token);
    feed.cursor = feedCursor;
    const entries = await feed.poll();
    expect(entries.map((e) => e.object_id)).toContain(added.publicId);
    const [renamed] = await db.query(`SELECT public_id FROM recordings WHERE company_id = $1 AND title = 'Renamed after the snapshot'`, [
      company.id,
    ]);
    expect(entries.map((e) => e.object_id)).toContain(renamed.public_id);
  });

  it('a writer whose transaction began before the export and commits during it: not in the snapshot, and after Feed-Cursor in the feed', async () => {
    const [target] = await db.query(
      `SELECT id, public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY id DESC LIMIT 1`,
      [company.id],
    );
    const writer = db.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    await writer.query(`UPDATE recordings SET title = 'Held across the export' WHERE id = $1`, [target.id]);
    let stream: ReturnType<typeof openExport> | undefined;
    try {
      stream = openExport(base, '/v1/export?types=meeting', token);
      const res = await stream.headed;
      expect(res.statusCode).toBe(200);
      await writer.commitTransaction();
      stream.resume();
      const { body, complete } = await stream.ended;
      expect(complete).toBe(true);
      const line = linesOf(body).find((l) => l.id === target.public_id);
      expect(line?.title).not.toBe('Held across the export');
      const feed = new FeedReader(() => http, token);
      feed.cursor = String(res.headers['feed-cursor']);
      expect((await feed.poll()).map((e) => e.object_id)).toContain(target.public_id);
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await writer.release();
    }
  });

  it('a client that goes away mid-stream leaves no transaction open, and its end is audited as client_closed', async () => {
    const stream = openExport(base, '/v1/export?types=meeting&include=transcript', await bigCompany());
    const res = await stream.headed;
    const requestId = String(res.headers['x-request-id']);
    res.destroy();
    await eventually(async () => (await db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [requestId])).length === 2, 30_000);
    const [, end] = await db.query(`SELECT query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`, [requestId]);
    expect(end.query.export.outcome).toBe('client_closed');
    await eventually(async () => {
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'conversation-read-api%' AND state LIKE 'idle in transaction%'`,
      );
      return n === 0;
    }, 30_000);
  }, 300_000);

  it('a stream cut by the client and resumed with after=<last complete line> gives every record exactly once, then the trailer', async () => {
    const bigToken = await bigCompany();
    const query = 'types=meeting&include=transcript';
    // The set to arrive at: one whole export.
    const full = (await exported(`?${query}`, bigToken)).lines;
    expect(full.pop()).toMatchObject({ object: 'export', records: { meeting: 6000 } });
    const fullIds = full.map((l) => l.id);

    // Some complete lines (a few batches, far from all), then the connection is closed from this side.
    const stream = openExport(base, `/v1/export?${query}`, bigToken);
    const res = await stream.headed;
    expect(res.statusCode).toBe(200);
    const received = await stream.readLines(250, 60_000);
    res.destroy();
    const part = completeLinesOf(received);
    expect(part.length).toBeGreaterThanOrEqual(250);
    expect(part.length).toBeLessThan(full.length);
    expect(part.filter((l) => l.object === 'export')).toEqual([]); // the first stream had no trailer
    expect(part).toEqual(full.slice(0, part.length));
    const last = part[part.length - 1].id as string;
    // The server has seen the cut.
    const requestId = String(res.headers['x-request-id']);
    await eventually(async () => (await db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [requestId])).length === 2, 30_000);
    const [, end] = await db.query(`SELECT query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`, [requestId]);
    expect(end.query.export.outcome).toBe('client_closed');

    // Resumed (the company's one export slot is free once the cut stream's transaction has ended: 429 until then).
    let resumed!: request.Response;
    await eventually(async () => {
      resumed = await get(`/v1/export?${query}&after=${last}`, bigToken).buffer(true).parse(rawBody);
      return resumed.status !== 429;
    }, 60_000);
    expect(resumed.status).toBe(200);
    const rest = linesOf(resumed.body as Buffer);
    const trailer = rest.pop()!;
    // Resumed: no cursor of its own (the first stream's is the one to follow).
    expect(resumed.headers['feed-cursor']).toBeUndefined();
    expect(trailer).toEqual({ object: 'export', records: { meeting: full.length - part.length }, feed_cursor: null });
    expect(rest.filter((l) => l.object === 'export')).toEqual([]);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest[0].id > last).toBe(true); // strictly after the id given
    const ids = [...part, ...rest].map((l) => l.id as string);
    expect(ids.length - new Set(ids).size).toBe(0); // no id twice
    expect(ids).toEqual(fullIds); // every id of the whole set, once, in order
    expect(rest).toEqual(full.slice(part.length));
  }, 300_000);

  it('compressed on request', async () => {
    const plain = (await exported('?types=email')).lines;
    const res = await get('/v1/export?types=email').set('Accept-Encoding', 'gzip').buffer(true).parse(rawBody).expect(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    // supertest may or may not have inflated it already.
    const body =
      res.headers['content-encoding'] === 'gzip' && (res.body as Buffer)[0] === 0x1f
        ? gunzipSync(res.body as Buffer)
        : (res.body as Buffer);
    const lines = linesOf(body);
    expect(lines.slice(0, -1)).toEqual(plain.slice(0, -1));
  });

  it('conversations with many messages: a batch holds at most 2,000 messages, a conversation with more comes alone, read in slices, whole when it fits the line budget, every one once', async () => {
    const chats: Array<{ id: string; public_id: string }> = await db.query(
      'SELECT id::text AS id, public_id FROM chat_conversations WHERE company_id = $1 ORDER BY public_id COLLATE "C" LIMIT 2',
      [company.id],
    );
    expect(chats).toHaveLength(2);
    const factory = new ConversationsFactory(db, company.id);
    await factory.bulkMessages('chat', { id: chats[0].id, publicId: chats[0].public_id }, 2500, new Date('2026-01-05T00:00:00Z'));
    await factory.bulkMessages('chat', { id: chats[1].id, publicId: chats[1].public_id }, 1500, new Date('2026-01-06T00:00:00Z'));
    const repository = app.get(ConversationsRepository);
    const reads: Array<{ conversations: number; messages: number }> = [];
    const spy = jest.spyOn(repository, 'messagesOf').mockImplementation(async function (this: ConversationsRepository, ...args) {
      const rows = await ConversationsRepository.prototype.messagesOf.apply(this, args);
      reads.push({ conversations: args[2].length, messages: rows.length });
      return rows as never;
    });
    let lines: Json[];
    try {
      lines = (await exported('?types=chat&include=messages')).lines;
    } finally {
      spy.mockRestore();
    }
    const trailer = lines.pop()!;
    const listed = (await traverse(get, '/v1/chat?include=messages', [100])).records.sort(byteOrder);
    expect(lines).toEqual(listed);
    expect(trailer.records.chat).toBe(listed.length);
    const big = lines.find((l) => l.id === chats[0].public_id)!;
    expect(big.included.messages.length).toBeGreaterThanOrEqual(2500);
    expect(big.included.messages_next_cursor).toBeNull();
    // Bounded reads (the extra row of a bound says where to stop); the big one is read apart, a slice at a time.
    expect(reads.filter((r) => r.messages > 2001)).toEqual([]);
  });

  it('scopes and bad input: 403 for a type or part the token cannot read, 400 for unknown types, parts and ids', async () => {
    const meetingsOnly = await tokenFor(http, await createClient(db, company, { scopes: ['meetings.read'] as Scope[] }));
    expectError(await get('/v1/export?types=call', meetingsOnly), 403, 'INSUFFICIENT_SCOPE');
    expectError(await get('/v1/export?include=transcript', meetingsOnly), 403, 'INSUFFICIENT_SCOPE');
    const emailsOnly = await tokenFor(http, await createClient(db, company, { scopes: ['emails.read'] as Scope[] }));
    expectError(await get('/v1/export?include=messages', emailsOnly), 403, 'INSUFFICIENT_SCOPE');
    const { lines } = await exported('', meetingsOnly);
    expect(Object.keys(lines[lines.length - 1].records)).toEqual(['meeting']);
    expectError(await get('/v1/export?types=recording'), 400, 'INVALID_FILTER');
    expectError(await get('/v1/export?include=summary'), 400, 'INVALID_FILTER');
    expectError(await get('/v1/export?after=nope'), 400, 'INVALID_FILTER');
    expectError(await get(`/v1/export?types=meeting&after=call_${'a'.repeat(22)}`), 400, 'INVALID_FILTER');
  });

  it('frees its slot before the trailer: with one slot per company, the next export may start the moment a trailer arrived', async () => {
    // The slot is an advisory lock of the snapshot's transaction. Each COMMIT is held back 300 ms
    // here: a trailer sent before its transaction ended would meet the next export still locked out.
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    const held = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      if (args[0] !== 'COMMIT') return query.apply(this, args);
      return sleep(300).then(() => query.apply(this, args));
    } as never);
    try {
      for (let n = 0; n < 6; n++) {
        const res = await get('/v1/export?types=call').buffer(true).parse(rawBody);
        expect({ n, status: res.status }).toEqual({ n, status: 200 });
        expect(linesOf(res.body as Buffer).pop()).toMatchObject({ object: 'export' });
      }
    } finally {
      held.mockRestore();
    }
  });

  it('EXPORT_CONCURRENCY per company: another export meanwhile is 429 with Retry-After; a reader that takes nothing is cut after EXPORT_IDLE_SECONDS', async () => {
    const bigToken = await bigCompany();
    const stream = openExport(base, '/v1/export?types=meeting&include=transcript', bigToken);
    const res = await stream.headed;
    expect(res.statusCode).toBe(200);
    const busy = await get('/v1/export?types=meeting', bigToken);
    expectError(busy, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing read for longer than the idle limit: the server cuts the stream (no trailer).
    await sleep(5000);
    stream.resume();
    const { body, complete } = await stream.ended;
    const text = body.toString('utf8');
    expect({ complete: complete && text.includes('"object":"export"'), bytes: body.length }).toMatchObject({ complete: false });
    const requestId = String(res.headers['x-request-id']);
    await eventually(async () => (await db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [requestId])).length === 2, 30_000);
    const [, end] = await db.query(`SELECT query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`, [requestId]);
    expect(end.query.export.outcome).toBe('idle_timeout');
    // The slot is free again; batch after batch, every one of the 6,000 meetings comes once, in id order.
    const { lines } = await exported('?types=meeting', bigToken);
    const trailer = lines.pop()!;
    expect(trailer.records).toEqual({ meeting: 6000 });
    const ids = lines.map((l) => l.id);
    expect(new Set(ids).size).toBe(6000);
    expect(ids).toEqual([...ids].sort());
  }, 300_000);
});

describe('GET /v1/export through a shutdown (the service as its own process)', () => {
  const DELAY_MS = 500;
  const GRACE_MS = 4000;
  let db: DataSource;

  beforeAll(async () => {
    db = await ownerDataSource();
  });
  afterAll(() => db?.destroy());

  it('a stream still open at the drain deadline is cut (no trailer), audited as shutdown, and the process exits within the grace', async () => {
    const big = await seedBigCompany(db);
    const client = await createClient(db, big, { scopes: [...ALL_SCOPES] });
    const service = await startServiceProcess({
      SHUTDOWN_DELAY_MS: String(DELAY_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: 'info',
    });
    try {
      const token = await processToken(service.base, client);
      const stream = openExport(service.base, '/v1/export?types=meeting&include=transcript', token);
      const res = await stream.headed; // a reader that takes nothing after the headers
      expect(res.statusCode).toBe(200);
      const requestId = String(res.headers['x-request-id']);
      const signalled = Date.now();
      const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
      service.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(DELAY_MS + GRACE_MS + 5000);
      stream.resume(); // what had reached this side, then the cut
      const { body, complete } = await stream.ended;
      expect(complete && body.toString('utf8').includes('"object":"export"')).toBe(false);
      const rows = await db.query(`SELECT query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`, [requestId]);
      expect(rows).toHaveLength(2);
      expect(rows[1].query.export.outcome).toBe('shutdown');
    } finally {
      await service.stop();
    }
  }, 300_000);
});
