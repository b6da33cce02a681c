import { get as httpGet, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { VolumeSeeder } from '../../src/seeding/volume-seeder';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { createCompany } from '../support/factories';
import { processToken, startServiceProcess } from '../support/service-process';
import { createClient, tokenFor } from '../support/credentials';
import { FeedReader } from '../support/feed';
import { expectError, traverse } from '../support/http';
import { assertTestDatabase, createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';
import { dataSourceOptions } from '../../src/database/data-source-options';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const LISTS: Array<[string, string]> = [
  ['meeting', '/v1/meetings'],
  ['call', '/v1/calls'],
  ['email', '/v1/emails'],
  ['chat', '/v1/chat'],
];
const byteOrder = (a: Json, b: Json) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** An export read through a plain HTTP client, paused after its headers until `resume()`. */
function openExport(base: string, path: string, token: string, headers: Record<string, string> = {}) {
  let chunks: Buffer[] = [];
  let response!: IncomingMessage;
  const headed = new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpGet(`${base}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      response = res;
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
  });
  const ended = headed.then(
    (res) =>
      new Promise<{ body: Buffer; complete: boolean }>((resolve) => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ body: Buffer.concat(chunks), complete: true }));
        res.on('aborted', () => resolve({ body: Buffer.concat(chunks), complete: false }));
        res.on('error', () => resolve({ body: Buffer.concat(chunks), complete: false }));
      }),
  );
  return {
    headed,
    ended,
    resume: () => response.resume(),
    reset: () => (chunks = []),
  };
}

/** supertest's parser for a body kept as its bytes (NDJSON, which it would not parse). */
const rawBody = (r: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  r.on('data', (c: Buffer) => parts.push(c));
  r.on('end', () => done(null, Buffer.concat(parts)));
};

const linesOf = (body: Buffer): Json[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length)
    .map((l) => JSON.parse(l));

/** A company too big for the sockets' buffers: 6,000 meetings with their transcripts (tens of MB). */
async function seedBigCompany(db: DataSource): Promise<Company> {
  const big = await createCompany(db);
  // As `seed:volume` runs: the schema owner without the tests' statement timeout.
  const seeding = await new DataSource(
    dataSourceOptions(assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), { poolSize: 1, statementTimeoutMs: 600_000 }),
  ).initialize();
  try {
    await new VolumeSeeder(seeding, new CompaniesService(new CompaniesRepository(seeding))).seed({
      company: big.publicId,
      meetings: 6000,
      calls: 0,
      emails: 0,
      chats: 0,
      messages: 0,
    });
  } finally {
    await seeding.destroy();
  }
  return big;
}

describe('GET /v1/export', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let base: string;
  let company: Company;
  let token: string;

  const get = (url: string, t = token) => http.get(url).set('Authorization', `Bearer ${t}`);
  const exported = async (query = '', t = token) => {
    const res = await get(`/v1/export${query}`, t)
      .buffer(true)
      .parse(rawBody)
      .expect(200);
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
    expect(lines.map((l) => l.object)).toEqual([...Array(trailer.records.call).fill('call'), ...Array(trailer.records.chat).fill('chat_conversation')]);
    const cut = lines[3].id;
    const resumed = (await exported(`?types=chat,call&after=${cut}`)).lines;
    resumed.pop();
    expect(resumed).toEqual(lines.slice(4));
  });

  it('one snapshot: writes committed while it streams are not in it, and the feed from its Feed-Cursor has them', async () => {
    const stream = openExport(base, '/v1/export?types=meeting', token);
    const res = await stream.headed;
    const feedCursor = String(res.headers['feed-cursor']);
    const people = new RecordingsFactory(db, company.id);
    const added = await people.recording('meeting', { owner: await people.user() });
    await db.query(`UPDATE recordings SET title = 'Renamed after the snapshot' WHERE company_id = $1 AND kind = 'meeting' AND id = (SELECT min(id) FROM recordings WHERE company_id = $1 AND kind = 'meeting')`, [company.id]);
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
    const [renamed] = await db.query(`SELECT public_id FROM recordings WHERE company_id = $1 AND title = 'Renamed after the snapshot'`, [company.id]);
    expect(entries.map((e) => e.object_id)).toContain(renamed.public_id);
  });

  it('a writer whose transaction began before the export and commits during it: not in the snapshot, and after Feed-Cursor in the feed', async () => {
    const [target] = await db.query(`SELECT id, public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY id DESC LIMIT 1`, [company.id]);
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
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'conversation-read-api' AND state LIKE 'idle in transaction%'`,
      );
      return n === 0;
    }, 30_000);
  }, 300_000);

  it('compressed on request', async () => {
    const plain = (await exported('?types=email')).lines;
    const res = await get('/v1/export?types=email')
      .set('Accept-Encoding', 'gzip')
      .buffer(true)
      .parse(rawBody)
      .expect(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    // supertest may or may not have inflated it already.
    const body = res.headers['content-encoding'] === 'gzip' && (res.body as Buffer)[0] === 0x1f ? gunzipSync(res.body as Buffer) : (res.body as Buffer);
    const lines = linesOf(body);
    expect(lines.slice(0, -1)).toEqual(plain.slice(0, -1));
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
    const service = await startServiceProcess({ SHUTDOWN_DELAY_MS: String(DELAY_MS), SHUTDOWN_GRACE_MS: String(GRACE_MS), LOG_LEVEL: 'info' });
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
