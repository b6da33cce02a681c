import dns from 'node:dns';
import { createServer, Server, Socket } from 'node:net';
import { AddressInfo, isIP } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { DATA_SCOPES, Scope } from '../../src/contract/scopes';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { rateLimitOf, retryAfterOf } from '../support/rate-limit-headers';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';
import { WORKER_ENV } from '../support/webhooks-in-process';

/**
 * A malicious integrator against the webhook endpoint routes (EXTENSIONS.md, "Webhook endpoints
 * through the API"): types it may not read, internal destinations (as written, after DNS, and
 * after a DNS answer that changes between the check and the send), a flood of calls, more
 * endpoints than a company may have, and another company's ids. One app, strict about
 * destinations (no WEBHOOK_ALLOW_PRIVATE), its webhook worker in process, a `webhook_admin`
 * quota of 5 calls a minute per client. DNS is faked in this process (the app's resolver is
 * node:dns's `lookup`) for the names below only.
 */
const MANAGE = 'webhooks.manage' as Scope;
const QUOTA = 5;
const WAIT_MS = 45_000;
const PUBLIC = '93.184.216.34';
const REPLAY_MAX = 3;

type Http = ReturnType<typeof request>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe('webhook endpoints: a malicious integrator', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;
  /** The faked DNS: name → the addresses it resolves to now. */
  const names = new Map<string, () => string[]>();
  let lookupSpy: jest.SpyInstance;

  beforeAll(async () => {
    const original = dns.promises.lookup.bind(dns.promises);
    lookupSpy = jest.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, options?: { all?: boolean }) => {
      const answer = names.get(host.toLowerCase());
      if (!answer) return original(host, options as never);
      const all = answer().map((address) => ({ address, family: isIP(address) }));
      return Promise.resolve(options?.all ? all : all[0]);
    }) as never);
    names.set('hooks.example.com', () => [PUBLIC]);
    db = await ownerDataSource();
    app = await createTestApp({
      env: {
        ...WORKER_ENV,
        WEBHOOK_ALLOW_PRIVATE: '0',
        WEBHOOK_RETRY_SCHEDULE: '1,1',
        RATE_LIMIT_WEBHOOK_ADMIN: `${QUOTA}/60`,
        WEBHOOK_REPLAY_MAX: String(REPLAY_MAX),
      },
    });
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
    lookupSpy?.mockRestore();
  });

  /**
   * Calls as `company`'s integrator under the per-client quota: each token serves at most
   * QUOTA - 1 calls, then a new client of the same company takes over.
   */
  function integratorOf(company: Company, scopes: Scope[] = [...DATA_SCOPES, MANAGE]) {
    let token: string | undefined;
    let used = 0;
    const fresh = async () => {
      if (!token || used >= QUOTA - 1) {
        token = await tokenFor(http, await createClient(db, company, { scopes }));
        used = 0;
      }
      used++;
      return token;
    };
    return {
      get: async (path: string) => http.get(path).auth(await fresh(), { type: 'bearer' }),
      post: async (path: string, body?: Json) => {
        const req = http.post(path).auth(await fresh(), { type: 'bearer' });
        return body === undefined ? req : req.send(body);
      },
      patch: async (path: string, body: Json) =>
        http
          .patch(path)
          .auth(await fresh(), { type: 'bearer' })
          .send(body),
      delete: async (path: string) => http.delete(path).auth(await fresh(), { type: 'bearer' }),
    };
  }
  type Caller = ReturnType<typeof integratorOf>;

  const create = async (as: Caller, body: Json): Promise<Json> => {
    const res = await as.post('/v1/webhook-endpoints', body);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const listed = async (as: Caller): Promise<Json[]> => (await as.get('/v1/webhook-endpoints?limit=100')).body.data;

  it('types it cannot read: 403 INSUFFICIENT_SCOPE naming the scope, on create and on update; nothing created or changed', async () => {
    const company = await createCompany(db);
    const meetingsOnly = integratorOf(company, ['meetings.read', MANAGE]);
    const chatNoContent = integratorOf(company, ['chat.read', MANAGE]);
    for (const [as, types, scope] of [
      [meetingsOnly, ['email'], 'emails.read'],
      [meetingsOnly, ['meeting', 'call'], 'calls.read'],
      [meetingsOnly, ['email_message'], 'emails.'],
      [chatNoContent, ['chat_message'], 'chat.content.read'],
    ] as Array<[Caller, string[], string]>) {
      const res = await as.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/steal', types });
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
      expect(res.headers['www-authenticate']).toContain(scope);
    }
    expect(await listed(meetingsOnly)).toEqual([]);

    // Its own endpoint (meetings by default), widened to what it may not read.
    const mine = await create(meetingsOnly, { url: 'https://hooks.example.com/mine' });
    expect(mine.types).toEqual(['meeting']);
    const widened = await meetingsOnly.patch(`/v1/webhook-endpoints/${mine.id}`, { types: ['meeting', 'chat'] });
    expectError(widened, 403, 'INSUFFICIENT_SCOPE');
    expect((await meetingsOnly.get(`/v1/webhook-endpoints/${mine.id}`)).body.data.types).toEqual(['meeting']);
    // A type that does not exist stays a validation error.
    expectError(
      await meetingsOnly.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/x', types: ['secrets'] }),
      400,
      'INVALID_FILTER',
    );
  });

  it('an endpoint of types its token cannot read (another client’s, an admin’s): it may see, test or delete it, not re-point, rotate, replay, retry or list what it sends', async () => {
    const company = await createCompany(db);
    const owner = integratorOf(company); // reads every type
    const meetingsOnly = integratorOf(company, ['meetings.read', MANAGE]);
    const theirs = await create(owner, { url: 'https://hooks.example.com/theirs' });
    expect(theirs.types.length).toBeGreaterThan(1);
    const path = `/v1/webhook-endpoints/${theirs.id}`;
    const test = await meetingsOnly.post(`${path}/test`);
    expect(test.status).toBe(202);
    for (const res of [
      await meetingsOnly.patch(path, { url: 'https://hooks.example.com/stolen' }),
      await meetingsOnly.patch(path, { enabled: false }),
      await meetingsOnly.post(`${path}/rotate-secret`),
      await meetingsOnly.post(`${path}/replay`, { from: '2020-01-01T00:00:00Z' }),
      await meetingsOnly.get(`${path}/deliveries`),
      await meetingsOnly.post(`${path}/deliveries/${test.body.data.delivery_id}/retry`),
    ]) {
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    }
    // Nor narrow it first and re-point it after: what it already queued of the other types (and their retries) would follow.
    expectError(await meetingsOnly.patch(path, { types: ['meeting'], url: 'https://hooks.example.com/narrow' }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await meetingsOnly.patch(path, { types: ['meeting'] }), 403, 'INSUFFICIENT_SCOPE');
    expect((await owner.get(path)).body.data).toMatchObject({ url: 'https://hooks.example.com/theirs', types: theirs.types });
    expect((await meetingsOnly.get(path)).status).toBe(200);
    expect((await meetingsOnly.delete(path)).status).toBe(204);
  });

  it('a delivery of a type its token cannot read, on an endpoint narrowed since: no retry (403); a key repeated by a narrower token of the same client: not the secret (403)', async () => {
    const company = await createCompany(db);
    const client = await createClient(db, company, { scopes: [...DATA_SCOPES, MANAGE] });
    const wide = await tokenFor(http, client);
    const narrow = await tokenFor(http, client, { scope: `meetings.read ${MANAGE}` });
    const call = (token: string) => ({
      post: (path: string, body?: Json) => http.post(path).auth(token, { type: 'bearer' }).send(body),
      patch: (path: string, body: Json) => http.patch(path).auth(token, { type: 'bearer' }).send(body),
    });
    // The same key and body from both tokens: the wide one's answer (its secret) is not the narrow one's.
    const body = { url: 'https://hooks.example.com/keyed', types: ['meeting', 'chat'] };
    const created = await call(wide).post('/v1/webhook-endpoints', body).set('Idempotency-Key', 'k-1');
    expect(created.status).toBe(201);
    const repeated = await call(narrow).post('/v1/webhook-endpoints', body).set('Idempotency-Key', 'k-1');
    expectError(repeated, 403, 'INSUFFICIENT_SCOPE');
    expect(JSON.stringify(repeated.body)).not.toContain('whsec_');
    // A chat delivery queued while the endpoint sent chats; then narrowed to meetings by the wide token.
    const path = `/v1/webhook-endpoints/${created.body.data.id}`;
    const [{ id }] = await db.query('SELECT id::text AS id FROM webhook_endpoints WHERE public_id = $1', [created.body.data.id]);
    const [{ public_id: chatDelivery }] = await db.query(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, status)
       VALUES ($1, 'chg_chat', 'chat.created', now(), '{}', 'failed') RETURNING public_id`,
      [id],
    );
    expect((await call(wide).patch(path, { types: ['meeting'] })).status).toBe(200);
    expectError(await call(narrow).post(`${path}/deliveries/${chatDelivery}/retry`), 403, 'INSUFFICIENT_SCOPE');
    const [{ status }] = await db.query('SELECT status FROM webhook_deliveries WHERE public_id = $1', [chatDelivery]);
    expect(status).toBe('failed');
  });

  it('bodies built to break the parser or the database: a NUL in a value or a name, arrays nested thousands deep: 400 INVALID_REQUEST, nothing created', async () => {
    const company = await createCompany(db);
    const as = integratorOf(company);
    const deep = `{"url":"https://hooks.example.com/x","types":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const bodies = [
      '{"url":"https://8.8.8.8/\\u0000"}',
      '{"url":"https://hooks.example.com/x","description":"a\\u0000b"}',
      '{"url":"https://hooks.example.com/x","\\u0000":1}',
      deep,
    ];
    for (const body of bodies) {
      const res = await http
        .post('/v1/webhook-endpoints')
        .auth(await tokenFor(http, await createClient(db, company, { scopes: [...DATA_SCOPES, MANAGE] })), { type: 'bearer' })
        .set('Content-Type', 'application/json')
        .send(body);
      expect({ body: body.slice(0, 60), status: res.status, code: res.body.error?.code }).toEqual({
        body: body.slice(0, 60),
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
    expect(await listed(as)).toEqual([]);
  });

  it(`a replay queues at most WEBHOOK_REPLAY_MAX events (${REPLAY_MAX} here), the first after its point`, async () => {
    const company = await createCompany(db);
    const as = integratorOf(company);
    // Public when added, loopback afterwards: every send is refused at once, nothing leaves the machine.
    let added = false;
    names.set('replayed.example.com', () => (added ? ['127.0.0.1'] : [PUBLIC]));
    const endpoint = await create(as, { url: 'https://replayed.example.com/hooks', types: ['meeting'] });
    added = true;
    const before = new Date(Date.now() - 60_000).toISOString();
    const people = new RecordingsFactory(db, company.id);
    const seller = await people.user();
    for (let i = 0; i < REPLAY_MAX + 2; i++) await people.recording('meeting', { owner: seller });
    // The endpoint's position has moved past them once its worker has dispatched them all (each refused at send).
    await eventually(async () => {
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE e.public_id = $1 AND NOT d.replay AND d.event_type = 'meeting.created'`,
        [endpoint.id],
      );
      return n === REPLAY_MAX + 2;
    }, WAIT_MS);
    const res = await as.post(`/v1/webhook-endpoints/${endpoint.id}/replay`, { from: before });
    expect({ status: res.status, queued: res.body.data?.queued }).toEqual({ status: 202, queued: REPLAY_MAX });
  });

  it.each([
    ['plain http', 'http://hooks.example.com/hooks'],
    ['loopback', 'https://127.0.0.1/hooks'],
    ['loopback, another spelling', 'https://2130706433/hooks'],
    ['private', 'https://10.0.0.1/hooks'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hooks'],
    ['a local name', 'https://localhost/hooks'],
    ['credentials', 'https://user:s3cr3tpw@hooks.example.com/hooks'],
    ['longer than 2,048 characters', `https://hooks.example.com/${'a'.repeat(2030)}`],
    ['not a URL', 'hooks.example.com/hooks'],
  ])('refuses %s: 400 INVALID_WEBHOOK_URL with the reason, on create and on update', async (_what, url) => {
    const as = integratorOf(await createCompany(db));
    expect(url.length > 2048).toBe(_what.startsWith('longer'));
    const res = await as.post('/v1/webhook-endpoints', { url });
    expectError(res, 400, 'INVALID_WEBHOOK_URL');
    expect(res.body.error.detail).toEqual(expect.any(String));
    expect(res.body.error.detail.length).toBeGreaterThan(0);
    expect(res.body.error.detail).not.toContain('s3cr3tpw');
    const mine = await create(as, { url: 'https://hooks.example.com/ok' });
    expectError(await as.patch(`/v1/webhook-endpoints/${mine.id}`, { url }), 400, 'INVALID_WEBHOOK_URL');
    expect((await listed(as)).map((e) => e.url)).toEqual(['https://hooks.example.com/ok']);
  });

  it('refuses a name whose DNS answer is private now (any of its addresses), on create and on update', async () => {
    names.set('internal.example.com', () => ['10.0.0.7']);
    names.set('mixed.example.com', () => [PUBLIC, '127.0.0.1']);
    names.set('metadata.example.com', () => ['169.254.169.254']);
    const as = integratorOf(await createCompany(db));
    for (const host of ['internal.example.com', 'mixed.example.com', 'metadata.example.com']) {
      const res = await as.post('/v1/webhook-endpoints', { url: `https://${host}/hooks` });
      expectError(res, 400, 'INVALID_WEBHOOK_URL');
    }
    const mine = await create(as, { url: 'https://hooks.example.com/ok' });
    expectError(
      await as.patch(`/v1/webhook-endpoints/${mine.id}`, { url: 'https://internal.example.com/hooks' }),
      400,
      'INVALID_WEBHOOK_URL',
    );
    expect((await listed(as)).map((e) => e.url)).toEqual(['https://hooks.example.com/ok']);
  });

  it('DNS rebinding: a name public when added and loopback when sent to is refused at send (last_error refused_address), never connected to [waits]', async () => {
    // Something listening where the rebound name points: it must never see a connection.
    const connections: Socket[] = [];
    const trap: Server = createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const port = (trap.address() as AddressInfo).port;
    let rebound = false;
    names.set('rebind.example.com', () => (rebound ? ['127.0.0.1'] : [PUBLIC]));
    try {
      const company = await createCompany(db);
      const as = integratorOf(company);
      const endpoint = await create(as, { url: `https://rebind.example.com:${port}/hooks` });
      rebound = true;
      const test = await as.post(`/v1/webhook-endpoints/${endpoint.id}/test`);
      expect(test.status).toBe(202);
      let row: Json | undefined;
      await eventually(async () => {
        const res = await as.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`);
        row = (res.body.data as Json[]).find((d) => d.id === test.body.data.delivery_id);
        return row?.attempts >= 1 && row?.last_error !== null;
      }, WAIT_MS);
      expect(row).toMatchObject({ type: 'webhook.test', last_error: 'refused_address', last_response_status: null });
      expect(row!.state).not.toBe('delivered');
      expect(connections).toHaveLength(0);
    } finally {
      await new Promise((resolve) => trap.close(resolve));
    }
  });

  it('a flood of calls: past the webhook_admin quota, 429 with Retry-After and the policy at r=0; other routes of the same client unaffected', async () => {
    const company = await createCompany(db);
    const client = await createClient(db, company, { scopes: [...DATA_SCOPES, MANAGE] });
    const token = await tokenFor(http, client);
    const post = (n: number) =>
      http
        .post('/v1/webhook-endpoints')
        .auth(token, { type: 'bearer' })
        .send({ url: `https://hooks.example.com/${n}` });
    const statuses: number[] = [];
    let first: request.Response | undefined;
    for (let i = 0; i < QUOTA; i++) {
      const res = await post(i);
      first ??= res;
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(QUOTA).fill(201));
    expect(rateLimitOf(first!).policy.get('webhook_admin')).toEqual({ q: QUOTA, w: 60 });
    expect(rateLimitOf(first!).state.get('webhook_admin')).toMatchObject({ r: QUOTA - 1 });

    const refused = await post(QUOTA);
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.type).toBe('RateLimitError');
    const retryAfter = retryAfterOf(refused);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rateLimitOf(refused).state.get('webhook_admin')).toMatchObject({ r: 0 });
    // Every webhook route shares the quota, reads included.
    expectError(await http.get('/v1/webhook-endpoints').auth(token, { type: 'bearer' }), 429, 'RATE_LIMIT_EXCEEDED');
    // The data routes are not webhook_admin's.
    const meetings = await http.get('/v1/meetings').auth(token, { type: 'bearer' });
    expect(meetings.status).toBe(200);
    expect([...rateLimitOf(meetings).policy.keys()]).not.toContain('webhook_admin');
    // The refused create made nothing (seen by another client of the company).
    expect(await listed(integratorOf(company))).toHaveLength(QUOTA);
  });

  it('at most 20 endpoints per company (409 WEBHOOK_ENDPOINT_LIMIT), even with creates racing for the last places; a deleted one frees its place', async () => {
    const company = await createCompany(db);
    const as = integratorOf(company);
    for (let i = 0; i < 18; i++) await create(as, { url: `https://hooks.example.com/${i}` });
    // Four at once for the last two places, each from its own client.
    const racers = [0, 1, 2, 3].map(() => integratorOf(company));
    const raced = await Promise.all(racers.map((r, i) => r.post('/v1/webhook-endpoints', { url: `https://hooks.example.com/race-${i}` })));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    for (const res of raced.filter((r) => r.status === 409)) {
      expectError(res, 409, 'WEBHOOK_ENDPOINT_LIMIT');
      expect(res.body.error.type).toBe('ConflictError');
    }
    const all = await listed(as);
    expect(all).toHaveLength(20);
    expectError(await as.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/21' }), 409, 'WEBHOOK_ENDPOINT_LIMIT');
    // Another company is not counted against this one.
    await create(integratorOf(await createCompany(db)), { url: 'https://hooks.example.com/elsewhere' });
    expect((await as.delete(`/v1/webhook-endpoints/${all[0].id}`)).status).toBe(204);
    await create(as, { url: 'https://hooks.example.com/again' });
    expect(await listed(as)).toHaveLength(20);
  });

  it('another company’s endpoint and delivery ids: 404 on every route, and nothing of theirs changed', async () => {
    const [victimCompany, attackerCompany] = [await createCompany(db), await createCompany(db)];
    const victim = integratorOf(victimCompany);
    const attacker = integratorOf(attackerCompany);
    const theirs = await create(victim, { url: 'https://hooks.example.com/victim', description: 'victim' });
    const theirTest = await victim.post(`/v1/webhook-endpoints/${theirs.id}/test`);
    expect(theirTest.status).toBe(202);
    const theirDelivery = theirTest.body.data.delivery_id as string;
    const mine = await create(attacker, { url: 'https://hooks.example.com/attacker' });

    const base = `/v1/webhook-endpoints/${theirs.id}`;
    const answers = [
      await attacker.get(base),
      await attacker.patch(base, { enabled: false, url: 'https://hooks.example.com/stolen' }),
      await attacker.delete(base),
      await attacker.post(`${base}/rotate-secret`),
      await attacker.get(`${base}/deliveries`),
      await attacker.post(`${base}/deliveries/${theirDelivery}/retry`),
      await attacker.post(`${base}/test`),
      await attacker.post(`${base}/replay`, { from: '2020-01-01T00:00:00Z' }),
      // Their delivery under my own endpoint.
      await attacker.post(`/v1/webhook-endpoints/${mine.id}/deliveries/${theirDelivery}/retry`),
    ];
    for (const res of answers) {
      expectError(res, 404, 'RESOURCE_NOT_FOUND');
      expect(JSON.stringify(res.body)).not.toContain('victim');
    }
    // The same answer as for an id that does not exist at all.
    const unknown = await attacker.get('/v1/webhook-endpoints/whe_0000000000000000000000');
    const { type, code, title } = unknown.body.error;
    for (const res of answers) expect(res.body.error).toMatchObject({ type, code, title });
    expect((await listed(attacker)).map((e) => e.id)).toEqual([mine.id]);

    // Nothing of theirs changed: same endpoint, their one delivery, their secret not rotated.
    const { secret: _secret, ...shown } = theirs;
    expect((await victim.get(base)).body.data).toEqual(shown);
    const theirRows = (await victim.get(`${base}/deliveries`)).body.data as Json[];
    expect(theirRows.map((d) => d.id)).toEqual([theirDelivery]);
    expect((await victim.post(`${base}/rotate-secret`)).status).toBe(200);

    // Each refused call is in the attacker's trail, none in the victim's.
    const ids = answers.map((r) => r.headers['x-request-id'] as string);
    await eventually(async () => {
      const [{ n }] = await db.query('SELECT count(*)::int AS n FROM audit_events WHERE request_id = ANY($1)', [ids]);
      return n === ids.length;
    }, 20_000);
    const trail = async (company: Company) => {
      const auditor = await tokenFor(http, await createClient(db, company, { scopes: ['audit.read'] }));
      const res = await http.get('/v1/audit-events?limit=100').auth(auditor, { type: 'bearer' });
      expect(res.status).toBe(200);
      return res.body.data as Json[];
    };
    const theirs404 = (await trail(attackerCompany)).filter((ev) => ids.includes(ev.request_id));
    expect(theirs404.map((ev) => ev.status)).toEqual(ids.map(() => 404));
    expect((await trail(victimCompany)).filter((ev) => ids.includes(ev.request_id))).toEqual([]);
  });
});
