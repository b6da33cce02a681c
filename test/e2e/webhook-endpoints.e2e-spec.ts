import dns from 'node:dns';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CHANGE_OBJECTS } from '../../src/changes/change.vocabulary';
import { Company } from '../../src/companies/company.entity';
import { DATA_SCOPES, Scope } from '../../src/contract/scopes';
import { RecordingsFactory, UserRef } from '../../src/seeding/recordings.factory';
import { createClient, TestClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { rateLimitOf } from '../support/rate-limit-headers';
import { processToken, ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestApp, eventually, ownerDataSource, TEST_CURSOR_SECRET, TEST_WEBHOOK_SECRET_KEY } from '../support/test-app';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { WORKER_ENV } from '../support/webhooks-in-process';

/**
 * Issue #50: an integrator manages its own webhook endpoints through the API
 * (EXTENSIONS.md, "Webhook endpoints through the API"). One app with its webhook worker in
 * process (private destinations allowed: the receivers listen on 127.0.0.1), a short retry
 * schedule (three attempts: the first and two retries a second apart), and, for what must hold
 * across instances (idempotency keys in PostgreSQL, secrets never logged), the service as a
 * second process on the same database.
 */
const MANAGE = 'webhooks.manage' as Scope;
/** Deadline of a wait on the worker, sized for a machine twice as slow at its busiest. */
const WAIT_MS = 45_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const ENDPOINT_ID = /^whe_[0-9A-Za-z]{22}$/;
const DELIVERY_ID = /^whd_[0-9A-Za-z]{22}$/;
const UNKNOWN_ENDPOINT = 'whe_0000000000000000000000';
const UNKNOWN_DELIVERY = 'whd_0000000000000000000000';

type Http = ReturnType<typeof request>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

interface Integrator {
  company: Company;
  people: RecordingsFactory;
  seller: UserRef;
  client: TestClient;
  token: string;
}

describe('webhook endpoints through the API', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;
  let second: ServiceProcess;
  const receivers: WebhookReceiver[] = [];
  let lookupSpy: jest.SpyInstance;

  beforeAll(async () => {
    // hooks.example.com: a public address (this machine may have no DNS; nothing is sent there).
    const original = dns.promises.lookup.bind(dns.promises);
    lookupSpy = jest.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, options?: { all?: boolean }) => {
      if (host.toLowerCase() !== 'hooks.example.com') return original(host, options as never);
      const answer = { address: '93.184.216.34', family: 4 };
      return Promise.resolve(options?.all ? [answer] : answer);
    }) as never);
    db = await ownerDataSource();
    [app, second] = await Promise.all([
      createTestApp({ env: { ...WORKER_ENV, WEBHOOK_RETRY_SCHEDULE: '1,1', RATE_LIMIT_WEBHOOK_ADMIN: '1000000/60' } }),
      // A second instance on the same database (no worker), its logs kept at debug level.
      startServiceProcess({
        CURSOR_SECRET: TEST_CURSOR_SECRET,
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
        WEBHOOK_ALLOW_PRIVATE: '1',
        RATE_LIMIT_WEBHOOK_ADMIN: '1000000/60',
        LOG_LEVEL: 'debug',
      }),
    ]);
    http = request(app.getHttpServer());
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await app?.close();
    await db?.destroy();
    lookupSpy?.mockRestore();
  });

  async function integrator(scopes: Scope[] = [...DATA_SCOPES, MANAGE]): Promise<Integrator> {
    const company = await createCompany(db);
    const people = new RecordingsFactory(db, company.id);
    const seller = await people.user();
    const client = await createClient(db, company, { scopes });
    return { company, people, seller, client, token: await tokenFor(http, client) };
  }

  async function receiver(): Promise<WebhookReceiver> {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  }

  const as = (token: string) => ({
    get: (path: string) => http.get(path).auth(token, { type: 'bearer' }),
    post: (path: string, body?: unknown) => {
      const req = http.post(path).auth(token, { type: 'bearer' });
      return body === undefined ? req : req.send(body as object);
    },
    patch: (path: string, body: unknown) =>
      http
        .patch(path)
        .auth(token, { type: 'bearer' })
        .send(body as object),
    delete: (path: string) => http.delete(path).auth(token, { type: 'bearer' }),
  });

  /** Every route of one endpoint (`base`: its path), each called once as `caller`. */
  const everyRouteOf = (caller: ReturnType<typeof as>, base: string) => [
    caller.get(base),
    caller.patch(base, { enabled: false }),
    caller.delete(base),
    caller.post(`${base}/rotate-secret`),
    caller.get(`${base}/deliveries`),
    caller.post(`${base}/deliveries/${UNKNOWN_DELIVERY}/retry`),
    caller.post(`${base}/test`),
    caller.post(`${base}/replay`, { from: new Date().toISOString() }),
  ];

  /** Creates an endpoint (201 expected); its body's `data`, secret included. */
  async function create(t: Integrator, body: Json): Promise<Json> {
    const res = await as(t.token).post('/v1/webhook-endpoints', body);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  const deliveries = async (t: Integrator, endpointId: string, query = ''): Promise<Json[]> => {
    const res = await as(t.token).get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  const endpointOf = async (t: Integrator, id: string): Promise<Json> => {
    const res = await as(t.token).get(`/v1/webhook-endpoints/${id}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  /** Change events (not test events) a receiver got. */
  const changeEvents = (rx: WebhookReceiver): Received[] => rx.received.filter((r) => r.event.type !== 'webhook.test');

  /** The endpoint as the contract shows it: exactly these fields, never a secret. */
  const endpointShape = (fields: Json) => ({
    object: 'webhook_endpoint',
    id: expect.stringMatching(ENDPOINT_ID),
    url: expect.any(String),
    types: expect.any(Array),
    description: null,
    enabled: true,
    state: 'enabled',
    failing_since: null,
    created_at: expect.stringMatching(ISO),
    updated_at: expect.stringMatching(ISO),
    ...fields,
  });

  /** The delivery as the contract shows it: exactly these fields, never a body. */
  const deliveryShape = (fields: Json) => ({
    object: 'webhook_delivery',
    id: expect.stringMatching(DELIVERY_ID),
    event_id: expect.any(String),
    type: expect.any(String),
    state: expect.any(String),
    attempts: expect.any(Number),
    created_at: expect.stringMatching(ISO),
    last_attempt_at: expect.stringMatching(ISO),
    next_attempt_at: null,
    last_response_status: 200,
    last_error: null,
    latency_ms: expect.any(Number),
    ...fields,
  });

  describe('endpoints: create, read, list, update, delete', () => {
    it('creates: 201, Location, the endpoint and its secret (once); types default to what the token reads; the webhook_admin policy beside client and company', async () => {
      const t = await integrator();
      const res = await as(t.token).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a?token=x', description: 'CRM sync' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: {
          ...endpointShape({ url: 'https://hooks.example.com/a?token=x', description: 'CRM sync' }),
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{20,}$/),
        },
        request_id: res.headers['x-request-id'],
      });
      const created = res.body.data;
      expect(res.headers.location).toBe(`/v1/webhook-endpoints/${created.id}`);
      expect([...created.types].sort()).toEqual([...CHANGE_OBJECTS].sort());
      expect(res.headers['cache-control']).toBe('no-store');
      const { policy, state } = rateLimitOf(res);
      expect([...policy.keys()].sort()).toEqual(['client', 'company', 'webhook_admin']);
      expect(policy.get('webhook_admin')).toEqual({ q: 1_000_000, w: 60 });
      expect([...state.keys()].sort()).toEqual(['client', 'company', 'webhook_admin']);

      // Read back: the same endpoint, no secret, at the Location.
      const got = await as(t.token).get(res.headers.location);
      expect(got.status).toBe(200);
      const { secret, ...shown } = created;
      expect(secret).toBeDefined();
      expect(got.body).toEqual({ data: shown, request_id: got.headers['x-request-id'] });
      expect(JSON.stringify(got.body)).not.toContain(secret);

      // A token that reads meetings only: the default is meetings only; a chosen subset is kept.
      const narrow = await integrator(['meetings.read', 'calls.read', MANAGE]);
      expect((await create(narrow, { url: 'https://hooks.example.com/b' })).types.sort()).toEqual(['call', 'meeting']);
      expect((await create(narrow, { url: 'https://hooks.example.com/c', types: ['call'] })).types).toEqual(['call']);
      const messages = await integrator(['chat.read', 'chat.content.read', MANAGE]);
      expect((await create(messages, { url: 'https://hooks.example.com/d' })).types.sort()).toEqual(['chat', 'chat_message']);
    });

    it('lists the company’s endpoints oldest first, in the list envelope, page by page; never a secret; never another company’s', async () => {
      const t = await integrator();
      const other = await integrator();
      const made: Json[] = [];
      for (const n of [1, 2, 3]) made.push(await create(t, { url: `https://hooks.example.com/${n}` }));
      await create(other, { url: 'https://hooks.example.com/theirs' });

      const first = await as(t.token).get('/v1/webhook-endpoints?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.request_id).toBe(first.headers['x-request-id']);
      expect(first.body.pagination).toEqual({ limit: 2, has_more: true, next_cursor: expect.stringMatching(/^cur_/) });
      const second = await as(t.token).get(`/v1/webhook-endpoints?limit=2&cursor=${first.body.pagination.next_cursor}`);
      expect(second.status).toBe(200);
      expect(second.body.pagination).toEqual({ limit: 2, has_more: false, next_cursor: null });
      const listed = [...first.body.data, ...second.body.data];
      expect(listed).toEqual(made.map(({ secret: _secret, ...e }) => e));
      for (const e of made) expect(JSON.stringify(listed)).not.toContain(e.secret);

      const all = await as(t.token).get('/v1/webhook-endpoints');
      expect(all.body.data.map((e: Json) => e.id)).toEqual(made.map((e) => e.id));
      expectError(await as(t.token).get('/v1/webhook-endpoints?limit=0'), 400, 'INVALID_LIMIT');
      expectError(await as(t.token).get('/v1/webhook-endpoints?cursor=cur_forged'), 400, 'INVALID_CURSOR');
    });

    it('updates url, types, description and enabled (200, the endpoint; updated_at moves); deletes (204, then 404 and gone from the list)', async () => {
      const t = await integrator();
      const e = await create(t, { url: 'https://hooks.example.com/old', description: 'first' });
      const res = await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, {
        url: 'https://hooks.example.com/new',
        types: ['meeting', 'email'],
        description: null,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: endpointShape({ id: e.id, url: 'https://hooks.example.com/new', types: expect.any(Array), created_at: e.created_at }),
        request_id: res.headers['x-request-id'],
      });
      expect(res.body.data.types.sort()).toEqual(['email', 'meeting']);
      expect(res.body.data.updated_at).not.toBe(e.updated_at);
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(e.updated_at));
      expect(JSON.stringify(res.body)).not.toContain('whsec_');

      const described = await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, { description: 'x'.repeat(200) });
      expect(described.status).toBe(200);
      expect(described.body.data).toMatchObject({ description: 'x'.repeat(200), url: 'https://hooks.example.com/new' });
      expect(await endpointOf(t, e.id)).toEqual(described.body.data);

      const removed = await as(t.token).delete(`/v1/webhook-endpoints/${e.id}`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expectError(await as(t.token).get(`/v1/webhook-endpoints/${e.id}`), 404, 'RESOURCE_NOT_FOUND');
      expectError(await as(t.token).delete(`/v1/webhook-endpoints/${e.id}`), 404, 'RESOURCE_NOT_FOUND');
      expect((await as(t.token).get('/v1/webhook-endpoints')).body.data).toEqual([]);
    });

    it('refuses a token without webhooks.manage on every route: 403 INSUFFICIENT_SCOPE naming the scope (the demo client’s scopes)', async () => {
      const owner = await integrator();
      const e = await create(owner, { url: 'https://hooks.example.com/x' });
      const reader = await integrator([...DATA_SCOPES]);
      const base = `/v1/webhook-endpoints/${e.id}`;
      const calls = [
        as(reader.token).get('/v1/webhook-endpoints'),
        as(reader.token).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/y' }),
        ...everyRouteOf(as(reader.token), base),
      ];
      for (const res of await Promise.all(calls)) {
        expectError(res, 403, 'INSUFFICIENT_SCOPE');
        expect(res.body.error.type).toBe('ForbiddenError');
        expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
        expect(res.headers['www-authenticate']).toContain('webhooks.manage');
      }
      // The scope is judged before the body is read (order of checks: 403 before 400).
      const malformed = await http
        .post('/v1/webhook-endpoints')
        .auth(reader.token, { type: 'bearer' })
        .set('Content-Type', 'application/json')
        .send('{"url":');
      expectError(malformed, 403, 'INSUFFICIENT_SCOPE');
      // No token at all: 401 first.
      const anonymous = await http.post('/v1/webhook-endpoints').send({ url: 'https://hooks.example.com/y' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.type).toBe('AuthenticationError');
      // Nothing changed: still there, still enabled, the only one.
      expect((await as(owner.token).get('/v1/webhook-endpoints')).body.data).toEqual([
        expect.objectContaining({ id: e.id, enabled: true }),
      ]);
    });
  });

  describe('request errors', () => {
    let t: Integrator;
    let e: Json;
    beforeAll(async () => {
      t = await integrator();
      e = await create(t, { url: 'https://hooks.example.com/errors' });
    });

    it.each([
      ['an unknown field', { url: 'https://hooks.example.com/', secret: 'whsec_mine' }],
      ['url of the wrong type', { url: 42 }],
      ['no url', { types: ['meeting'] }],
      ['types not an array', { url: 'https://hooks.example.com/', types: 'meeting' }],
      ['types of the wrong type', { url: 'https://hooks.example.com/', types: [1] }],
      ['description of the wrong type', { url: 'https://hooks.example.com/', description: 7 }],
      ['description over 200 characters', { url: 'https://hooks.example.com/', description: 'd'.repeat(201) }],
      ['enabled on create (not a create field)', { url: 'https://hooks.example.com/', enabled: false }],
      ['a JSON array', [{ url: 'https://hooks.example.com/' }]],
    ])('create with %s: 400 INVALID_REQUEST, nothing created', async (_what, body) => {
      expectError(await as(t.token).post('/v1/webhook-endpoints', body), 400, 'INVALID_REQUEST');
      expect((await as(t.token).get('/v1/webhook-endpoints')).body.data.map((x: Json) => x.id)).toEqual([e.id]);
    });

    it('malformed JSON: 400 INVALID_REQUEST; another content type: 415; a body over 16 KiB: 413 (each in the error envelope)', async () => {
      const malformed = await http
        .post('/v1/webhook-endpoints')
        .auth(t.token, { type: 'bearer' })
        .set('Content-Type', 'application/json')
        .send('{"url": "https://hooks.example.com/",');
      expectError(malformed, 400, 'INVALID_REQUEST');
      expect(malformed.body.error.type).toBe('InvalidRequestError');

      const form = await http
        .post('/v1/webhook-endpoints')
        .auth(t.token, { type: 'bearer' })
        .type('form')
        .send({ url: 'https://hooks.example.com/' });
      expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(form.body.error.type).toBe('UnsupportedMediaTypeError');
      const text = await http
        .patch(`/v1/webhook-endpoints/${e.id}`)
        .auth(t.token, { type: 'bearer' })
        .set('Content-Type', 'text/plain')
        .send('{"enabled": false}');
      expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');

      const big = await as(t.token).post('/v1/webhook-endpoints', {
        url: 'https://hooks.example.com/',
        description: 'b'.repeat(17 * 1024),
      });
      expectError(big, 413, 'PAYLOAD_TOO_LARGE');
      expect(big.body.error.type).toBe('PayloadTooLargeError');
      // Just under 16 KiB is read (and refused for what it says, not for its size).
      const under = await as(t.token).post('/v1/webhook-endpoints', {
        url: 'https://hooks.example.com/',
        description: 'b'.repeat(15 * 1024),
      });
      expectError(under, 400, 'INVALID_REQUEST');
      expect((await endpointOf(t, e.id)).enabled).toBe(true);
    });

    it('an unknown type: 400 INVALID_FILTER, on create and update', async () => {
      expectError(
        await as(t.token).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/', types: ['meeting', 'webinar'] }),
        400,
        'INVALID_FILTER',
      );
      expectError(await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, { types: ['webinar'] }), 400, 'INVALID_FILTER');
      expect([...(await endpointOf(t, e.id)).types].sort()).toEqual([...CHANGE_OBJECTS].sort());
    });

    it.each([
      ['credentials in the URL', 'https://user:s3cr3tpw@hooks.example.com/'],
      ['the cloud metadata address (refused even with WEBHOOK_ALLOW_PRIVATE=1)', 'http://169.254.169.254/latest/meta-data'],
      ['a URL over 2,048 characters', `https://hooks.example.com/${'p'.repeat(2048)}`],
      ['not a URL', 'not a url'],
      ['another scheme', 'ftp://hooks.example.com/'],
    ])('a refused URL (%s): 400 INVALID_WEBHOOK_URL with the reason in detail, never the URL’s secrets', async (_what, url) => {
      const res = await as(t.token).post('/v1/webhook-endpoints', { url });
      expectError(res, 400, 'INVALID_WEBHOOK_URL');
      expect(res.body.error.type).toBe('InvalidRequestError');
      expect(res.body.error.detail.length).toBeGreaterThan(0);
      expect(res.body.error.detail).not.toContain('s3cr3tpw');
      expectError(await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, { url }), 400, 'INVALID_WEBHOOK_URL');
      expect((await endpointOf(t, e.id)).url).toBe('https://hooks.example.com/errors');
    });

    it('update errors: an unknown field, a wrong type, an empty or malformed body: 400 INVALID_REQUEST, nothing changed', async () => {
      const bodies = [
        { secret: 'whsec_x' },
        { enabled: 'no' },
        { enabled: null },
        { url: null },
        { types: 'call' },
        { types: null },
        { description: 5 },
      ];
      const answers: request.Response[] = [];
      for (const body of bodies) answers.push(await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, body));
      // Every body's answer at once, so one failure shows them all.
      expect(bodies.map((body, i) => ({ body, status: answers[i].status, code: answers[i].body.error?.code }))).toEqual(
        bodies.map((body) => ({ body, status: 400, code: 'INVALID_REQUEST' })),
      );
      for (const res of answers) expectError(res, 400, 'INVALID_REQUEST');
      const malformed = await http
        .patch(`/v1/webhook-endpoints/${e.id}`)
        .auth(t.token, { type: 'bearer' })
        .set('Content-Type', 'application/json')
        .send('{enabled: false}');
      expectError(malformed, 400, 'INVALID_REQUEST');
      expect(await endpointOf(t, e.id)).toMatchObject({ enabled: true, state: 'enabled', url: 'https://hooks.example.com/errors' });
    });

    it('an unknown endpoint or delivery: 404 RESOURCE_NOT_FOUND on every route', async () => {
      const base = `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}`;
      const answers = await Promise.all([
        ...everyRouteOf(as(t.token), base),
        as(t.token).post(`/v1/webhook-endpoints/${e.id}/deliveries/${UNKNOWN_DELIVERY}/retry`),
        as(t.token).get('/v1/webhook-endpoints/not-an-id'),
      ]);
      for (const res of answers) {
        expectError(res, 404, 'RESOURCE_NOT_FOUND');
        expect(res.body.error.type).toBe('NotFoundError');
      }
    });

    it('a known path with another method: 405 METHOD_NOT_ALLOWED with Allow', async () => {
      const put = await http.put(`/v1/webhook-endpoints/${e.id}`).auth(t.token, { type: 'bearer' }).send({ enabled: false });
      expectError(put, 405, 'METHOD_NOT_ALLOWED');
      expect(put.headers.allow.split(/,\s*/).sort()).toEqual(expect.arrayContaining(['DELETE', 'GET', 'PATCH']));
      const get = await http.get(`/v1/webhook-endpoints/${e.id}/rotate-secret`).auth(t.token, { type: 'bearer' });
      expectError(get, 405, 'METHOD_NOT_ALLOWED');
      expect(get.headers.allow).toContain('POST');
    });

    it('deliveries: an unknown state is 400 INVALID_FILTER; replay without a usable `from` is 400', async () => {
      expectError(await as(t.token).get(`/v1/webhook-endpoints/${e.id}/deliveries?state=lost`), 400, 'INVALID_FILTER');
      expectError(await as(t.token).get(`/v1/webhook-endpoints/${e.id}/deliveries?limit=101`), 400, 'INVALID_LIMIT');
      expectError(await as(t.token).post(`/v1/webhook-endpoints/${e.id}/replay`, {}), 400, 'INVALID_REQUEST');
      expectError(await as(t.token).post(`/v1/webhook-endpoints/${e.id}/replay`, { from: 'now', extra: 1 }), 400, 'INVALID_REQUEST');
      const garbage = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/replay`, { from: 'cur_notacursor' });
      expect(garbage.status).toBe(400);
      expect(['INVALID_CURSOR', 'INVALID_REQUEST', 'INVALID_DATETIME']).toContain(garbage.body.error.code);
    });
  });

  describe('idempotent create', () => {
    it('the same key and body answers the first answer again (201, same endpoint, same secret); another body: 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const t = await integrator();
      const body = { url: 'https://hooks.example.com/idem', types: ['meeting'] };
      const post = (b: Json, key: string) => as(t.token).post('/v1/webhook-endpoints', b).set('Idempotency-Key', key);
      const first = await post(body, 'key-1');
      expect(first.status).toBe(201);
      const again = await post(body, 'key-1');
      expect(again.status).toBe(201);
      expect(again.body.data).toEqual(first.body.data);
      expect(again.headers.location).toBe(first.headers.location);

      const reused = await post({ ...body, url: 'https://hooks.example.com/other' }, 'key-1');
      expectError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(reused.body.error.type).toBe('ConflictError');
      expect(JSON.stringify(reused.body)).not.toContain(first.body.data.secret);
      // Another key is another endpoint; no key at all too.
      const other = await post(body, 'key-2');
      expect(other.status).toBe(201);
      expect(other.body.data.id).not.toBe(first.body.data.id);
      expect((await as(t.token).get('/v1/webhook-endpoints')).body.data.map((x: Json) => x.id)).toEqual([
        first.body.data.id,
        other.body.data.id,
      ]);
      // The key's bounds: 1 to 255 characters.
      expect((await post({ url: 'https://hooks.example.com/long' }, 'k'.repeat(255))).status).toBe(201);
      expectError(await post({ url: 'https://hooks.example.com/long' }, 'k'.repeat(256)), 400, 'INVALID_REQUEST');
    });

    it('a key is kept 24 h: within them the first answer, past them the same key makes a new endpoint', async () => {
      const t = await integrator();
      const post = () =>
        as(t.token).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/day' }).set('Idempotency-Key', 'day-key');
      const age = async (hours: number) => {
        const [rows] = await db.query(
          `UPDATE idempotency_keys SET created_at = now() - make_interval(hours => $2) WHERE company_id = $1 RETURNING key`,
          [t.company.id, hours],
        );
        expect(rows).toEqual([{ key: 'day-key' }]);
      };
      const first = await post();
      expect(first.status).toBe(201);
      await age(23);
      const within = await post();
      expect(within.status).toBe(201);
      expect(within.body.data).toEqual(first.body.data);
      await age(25);
      const later = await post();
      expect(later.status).toBe(201);
      expect(later.body.data.id).not.toBe(first.body.data.id);
      expect(later.body.data.secret).not.toBe(first.body.data.secret);
      expect((await as(t.token).get('/v1/webhook-endpoints')).body.data).toHaveLength(2);
    });

    it('two creates racing with one key make one endpoint, and both answers are the same', async () => {
      const t = await integrator();
      const send = () =>
        as(t.token).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/race' }).set('Idempotency-Key', 'race-key');
      const [a, b] = await Promise.all([send(), send()]);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body.data).toEqual(a.body.data);
      const listed = (await as(t.token).get('/v1/webhook-endpoints')).body.data;
      expect(listed.map((x: Json) => x.id)).toEqual([a.body.data.id]);
    });

    it('the key lives in PostgreSQL: the repeat sent to another instance answers the same', async () => {
      const t = await integrator();
      const body = JSON.stringify({ url: 'https://hooks.example.com/replica', description: 'two instances' });
      const first = await as(t.token).post('/v1/webhook-endpoints', JSON.parse(body)).set('Idempotency-Key', 'replica-key');
      expect(first.status).toBe(201);
      const token = await processToken(second.base, t.client);
      const post = (b: string) =>
        fetch(`${second.base}/v1/webhook-endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'replica-key' },
          body: b,
        });
      const repeat = await post(body);
      expect(repeat.status).toBe(201);
      expect(((await repeat.json()) as Json).data).toEqual(first.body.data);
      const reused = await post(JSON.stringify({ url: 'https://hooks.example.com/elsewhere' }));
      expect(reused.status).toBe(409);
      expect(((await reused.json()) as Json).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await as(t.token).get('/v1/webhook-endpoints')).body.data).toHaveLength(1);
    });
  });

  describe('deliveries at a real receiver [waits]', () => {
    it('delivers each change signed (standardwebhooks); the delivery list, newest first, matches what the receiver saw; `state` filters', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      await t.people.recording('meeting', { owner: t.seller });
      await t.people.recording('call', { owner: t.seller });
      await t.people.recording('meeting', { owner: t.seller });
      await eventually(async () => rx.received.length >= 3, WAIT_MS);
      let rows: Json[] = [];
      await eventually(async () => {
        rows = await deliveries(t, e.id);
        return rows.length === 3 && rows.every((r) => r.state === 'delivered');
      }, WAIT_MS);
      expect(rx.received).toHaveLength(3);
      for (const r of rx.received) expect(WebhookReceiver.verifies(e.secret, r)).toBe(true);

      for (const row of rows) {
        const seen = rx.received.find((r) => r.id === row.event_id)!;
        expect(seen).toBeDefined();
        expect(row).toEqual(deliveryShape({ event_id: seen.id, type: seen.event.type, state: 'delivered', attempts: 1 }));
        expect(row.latency_ms).toBeGreaterThanOrEqual(0);
      }
      expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(rx.received.map((r) => r.id)));
      expect(rows.map((r) => r.type).sort()).toEqual(['call.created', 'meeting.created', 'meeting.created']);
      // Newest first.
      const created = rows.map((r) => Date.parse(r.created_at));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      // Page by page, the same rows in the same order.
      const page1 = await as(t.token).get(`/v1/webhook-endpoints/${e.id}/deliveries?limit=2`);
      expect(page1.body.pagination).toMatchObject({ limit: 2, has_more: true });
      const page2 = await as(t.token).get(`/v1/webhook-endpoints/${e.id}/deliveries?limit=2&cursor=${page1.body.pagination.next_cursor}`);
      expect(page2.body.pagination).toEqual({ limit: 2, has_more: false, next_cursor: null });
      expect([...page1.body.data, ...page2.body.data]).toEqual(rows);
      // The state filter.
      expect(await deliveries(t, e.id, '&state=delivered')).toEqual(rows);
      expect(await deliveries(t, e.id, '&state=failed')).toEqual([]);
      expect(await deliveries(t, e.id, '&state=pending')).toEqual([]);
    });

    it('test: 202 {delivery_id}; the receiver gets a signed webhook.test whose webhook-id is the delivery’s event_id', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      const res = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/test`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: { delivery_id: expect.stringMatching(DELIVERY_ID) }, request_id: res.headers['x-request-id'] });
      await eventually(async () => rx.received.length === 1, WAIT_MS);
      const [got] = rx.received;
      expect(WebhookReceiver.verifies(e.secret, got)).toBe(true);
      expect(JSON.parse(got.body)).toEqual({ type: 'webhook.test', timestamp: expect.stringMatching(ISO), data: { endpoint_id: e.id } });
      let row: Json | undefined;
      await eventually(async () => {
        row = (await deliveries(t, e.id)).find((d) => d.id === res.body.data.delivery_id);
        return row?.state === 'delivered';
      }, WAIT_MS);
      expect(row).toEqual(
        deliveryShape({ id: res.body.data.delivery_id, event_id: got.id, type: 'webhook.test', state: 'delivered', attempts: 1 }),
      );
    });

    it('retry: 202 {delivery_id}; the same event (same webhook-id) is sent again at once, one more attempt on the same delivery', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      await t.people.recording('meeting', { owner: t.seller });
      let row: Json | undefined;
      await eventually(async () => {
        [row] = await deliveries(t, e.id);
        return row?.state === 'delivered';
      }, WAIT_MS);
      const sentAt = Date.now();
      const res = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/deliveries/${row!.id}/retry`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: { delivery_id: row!.id }, request_id: res.headers['x-request-id'] });
      await eventually(async () => rx.received.length === 2, WAIT_MS);
      expect(rx.received.map((r) => r.id)).toEqual([row!.event_id, row!.event_id]);
      expect(rx.received[1].body).toBe(rx.received[0].body);
      expect(WebhookReceiver.verifies(e.secret, rx.received[1])).toBe(true);
      // Due now, not on a schedule: well within the deadline.
      expect(rx.received[1].at - sentAt).toBeLessThan(WAIT_MS / 3);
      let after: Json[] = [];
      await eventually(async () => {
        after = await deliveries(t, e.id);
        return after[0]?.attempts === 2 && after[0]?.state === 'delivered';
      }, WAIT_MS);
      expect(after).toEqual([
        deliveryShape({ id: row!.id, event_id: row!.event_id, type: 'meeting.created', state: 'delivered', attempts: 2 }),
      ]);
      expect(Date.parse(after[0].last_attempt_at)).toBeGreaterThan(Date.parse(row!.last_attempt_at));
    });

    it('a receiver that keeps failing: the delivery fails after its retries (non_2xx), the endpoint is failing; resuming clears it and a retry delivers', async () => {
      const t = await integrator();
      const rx = await receiver();
      rx.answer = () => ({ status: 503 });
      const e = await create(t, { url: rx.url });
      await t.people.recording('meeting', { owner: t.seller });
      let shown: Json = {};
      await eventually(async () => {
        shown = await endpointOf(t, e.id);
        return shown.state === 'failing';
      }, WAIT_MS);
      expect(shown).toEqual(
        endpointShape({ id: e.id, url: rx.url, state: 'failing', failing_since: expect.stringMatching(ISO), created_at: e.created_at }),
      );
      expect(rx.received.map((r) => r.attempt)).toEqual([1, 2, 3]);
      const [failed] = await deliveries(t, e.id);
      expect(failed).toEqual(
        deliveryShape({
          event_id: rx.received[0].id,
          type: 'meeting.created',
          state: 'failed',
          attempts: 3,
          last_response_status: 503,
          last_error: 'non_2xx',
        }),
      );
      expect(await deliveries(t, e.id, '&state=failed')).toEqual([failed]);
      expect(await deliveries(t, e.id, '&state=delivered')).toEqual([]);

      rx.answer = () => ({ status: 200 });
      const resumed = await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, { enabled: true });
      expect(resumed.status).toBe(200);
      expect(resumed.body.data).toMatchObject({ enabled: true, state: 'enabled', failing_since: null });
      const retried = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/deliveries/${failed.id}/retry`);
      expect(retried.status).toBe(202);
      await eventually(async () => rx.received.length >= 4, WAIT_MS);
      expect(rx.received.every((r) => r.id === failed.event_id)).toBe(true);
      expect(WebhookReceiver.verifies(e.secret, rx.received[3])).toBe(true);
      await eventually(async () => (await deliveries(t, e.id))[0]?.state === 'delivered', WAIT_MS);
      // One more attempt on the same delivery, counted as the receiver saw it.
      const [done] = await deliveries(t, e.id);
      expect(done).toMatchObject({ id: failed.id, event_id: failed.event_id, last_response_status: 200, last_error: null });
      expect(done.attempts).toBeGreaterThanOrEqual(4);
      expect(done.attempts).toBe(rx.received.length);
      expect(await endpointOf(t, e.id)).toMatchObject({ state: 'enabled', failing_since: null });
    });

    it('a receiver that is gone: the delivery records last_error connection, no status', async () => {
      const t = await integrator();
      const rx = await receiver();
      const url = rx.url;
      await rx.close();
      const e = await create(t, { url });
      const res = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/test`);
      expect(res.status).toBe(202);
      let row: Json | undefined;
      await eventually(async () => {
        row = (await deliveries(t, e.id)).find((d) => d.id === res.body.data.delivery_id);
        return row?.attempts >= 1;
      }, WAIT_MS);
      expect(row).toMatchObject({ type: 'webhook.test', last_error: 'connection', last_response_status: null });
      expect(['pending', 'failed']).toContain(row!.state);
    });

    it('pause: nothing is sent while disabled (a test event is); resume sends everything committed meanwhile, none lost', async () => {
      const t = await integrator();
      const [paused, control] = [await receiver(), await receiver()];
      const p = await create(t, { url: paused.url });
      const c = await create(t, { url: control.url });
      const off = await as(t.token).patch(`/v1/webhook-endpoints/${p.id}`, { enabled: false });
      expect(off.status).toBe(200);
      expect(off.body.data).toEqual(
        endpointShape({ id: p.id, url: paused.url, enabled: false, state: 'disabled', created_at: p.created_at }),
      );
      expect(await endpointOf(t, p.id)).toMatchObject({ enabled: false, state: 'disabled' });

      const meetings = [];
      for (let i = 0; i < 3; i++) meetings.push((await t.people.recording('meeting', { owner: t.seller })).publicId);
      await eventually(async () => changeEvents(control).length >= 3, WAIT_MS);
      // The dispatcher has had its chances: a later change reached the control endpoint too.
      meetings.push((await t.people.recording('call', { owner: t.seller })).publicId);
      await eventually(async () => changeEvents(control).length >= 4, WAIT_MS);
      expect(changeEvents(paused)).toEqual([]);
      expect((await deliveries(t, p.id)).filter((d) => d.state !== 'pending')).toEqual([]);

      // A paused endpoint gets a test event.
      const test = await as(t.token).post(`/v1/webhook-endpoints/${p.id}/test`);
      expect(test.status).toBe(202);
      await eventually(async () => paused.received.some((r) => r.event.type === 'webhook.test'), WAIT_MS);
      expect(changeEvents(paused)).toEqual([]);

      const on = await as(t.token).patch(`/v1/webhook-endpoints/${p.id}`, { enabled: true });
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ enabled: true, state: 'enabled' });
      await eventually(async () => changeEvents(paused).length >= 4, WAIT_MS);
      const expected = changeEvents(control)
        .map((r) => r.id)
        .sort();
      expect(
        changeEvents(paused)
          .map((r) => r.id)
          .sort(),
      ).toEqual(expected);
      expect(
        changeEvents(paused)
          .map((r) => r.event.data.object_id)
          .sort(),
      ).toEqual([...meetings].sort());
      for (const r of paused.received) expect(WebhookReceiver.verifies(p.secret, r)).toBe(true);
      for (const r of control.received) expect(WebhookReceiver.verifies(c.secret, r)).toBe(true);
    });

    it('delete: nothing more is sent to a deleted endpoint', async () => {
      const t = await integrator();
      const [gone, control] = [await receiver(), await receiver()];
      const g = await create(t, { url: gone.url });
      await create(t, { url: control.url });
      expect((await as(t.token).delete(`/v1/webhook-endpoints/${g.id}`)).status).toBe(204);
      await t.people.recording('meeting', { owner: t.seller });
      await t.people.recording('call', { owner: t.seller });
      await eventually(async () => control.received.length >= 2, WAIT_MS);
      expect(gone.received).toEqual([]);
      expectError(await as(t.token).post(`/v1/webhook-endpoints/${g.id}/test`), 404, 'RESOURCE_NOT_FOUND');
    });

    it('rotate: 200 {secret, previous_secret_expires_at in 24 h}; events then carry both signatures, each verifying; again within the overlap: 409 ROTATION_IN_PROGRESS', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      const before = Date.now();
      const res = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/rotate-secret`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.stringMatching(ISO) },
        request_id: res.headers['x-request-id'],
      });
      const { secret, previous_secret_expires_at: expires } = res.body.data;
      expect(secret).not.toBe(e.secret);
      const day = 24 * 3600_000;
      expect(Date.parse(expires)).toBeGreaterThanOrEqual(before + day - 1000);
      expect(Date.parse(expires)).toBeLessThanOrEqual(Date.now() + day + 1000);

      const again = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/rotate-secret`);
      expectError(again, 409, 'ROTATION_IN_PROGRESS');
      expect(again.body.error.type).toBe('ConflictError');
      expect(JSON.stringify(again.body)).not.toContain('whsec_');

      await t.people.recording('meeting', { owner: t.seller });
      expect((await as(t.token).post(`/v1/webhook-endpoints/${e.id}/test`)).status).toBe(202);
      await eventually(async () => rx.received.length >= 2, WAIT_MS);
      for (const r of rx.received) {
        const signatures = r.signature.split(' ');
        expect(signatures).toHaveLength(2);
        for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
        // Either secret verifies on its own (a receiver that has one or the other).
        expect(WebhookReceiver.verifies(secret, r)).toBe(true);
        expect(WebhookReceiver.verifies(e.secret, r)).toBe(true);
        expect(WebhookReceiver.verifies(`whsec_${Buffer.from('not the secret at all').toString('base64')}`, r)).toBe(false);
      }
    });

    it('update types: the endpoint then receives only those', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      const res = await as(t.token).patch(`/v1/webhook-endpoints/${e.id}`, { types: ['call'] });
      expect(res.status).toBe(200);
      expect(res.body.data.types).toEqual(['call']);
      await t.people.recording('meeting', { owner: t.seller });
      const call = await t.people.recording('call', { owner: t.seller });
      // The call was committed after the meeting: once it arrived, the meeting was passed over.
      await eventually(async () => rx.received.length >= 1, WAIT_MS);
      expect(rx.received.map((r) => [r.event.type, r.event.data.object_id])).toEqual([['call.created', call.publicId]]);
    });

    it('after the overlap: events carry the new signature only, and the secret may be rotated again', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      const rotated = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const [rows] = await db.query(
        `UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second' WHERE public_id = $1 RETURNING public_id`,
        [e.id],
      );
      expect(rows).toHaveLength(1);
      expect((await as(t.token).post(`/v1/webhook-endpoints/${e.id}/test`)).status).toBe(202);
      await eventually(async () => rx.received.length === 1, WAIT_MS);
      expect(rx.received[0].signature.split(' ')).toHaveLength(1);
      expect(WebhookReceiver.verifies(rotated.body.data.secret, rx.received[0])).toBe(true);
      expect(WebhookReceiver.verifies(e.secret, rx.received[0])).toBe(false);
      const again = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/rotate-secret`);
      expect(again.status).toBe(200);
      expect(again.body.data.secret).not.toBe(rotated.body.data.secret);
    });

    it('replay: 202 {queued}; the changes after an event’s cursor, or committed after a date-time, are sent again', async () => {
      const t = await integrator();
      const rx = await receiver();
      const e = await create(t, { url: rx.url });
      for (let i = 0; i < 3; i++) await t.people.recording('meeting', { owner: t.seller });
      await eventually(async () => rx.received.length === 3, WAIT_MS);
      const byCommit = [...rx.received].sort((a, b) => a.event.timestamp.localeCompare(b.event.timestamp) || 0);
      // The first change's cursor: the two after it.
      const first = byCommit[0];
      const res = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/replay`, { from: first.event.data.cursor });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: { queued: 2 }, request_id: res.headers['x-request-id'] });
      await eventually(async () => rx.received.length === 5, WAIT_MS);
      expect(
        rx.received
          .slice(3)
          .map((r) => r.id)
          .sort(),
      ).toEqual(
        byCommit
          .slice(1)
          .map((r) => r.id)
          .sort(),
      );
      for (const r of rx.received) expect(WebhookReceiver.verifies(e.secret, r)).toBe(true);

      // From a date-time before all three: at least these three again.
      const since = new Date(Date.parse(e.created_at) - 1000).toISOString();
      const dated = await as(t.token).post(`/v1/webhook-endpoints/${e.id}/replay`, { from: since });
      expect(dated.status).toBe(202);
      expect(dated.body.data.queued).toBeGreaterThanOrEqual(3);
      await eventually(async () => rx.received.length === 5 + dated.body.data.queued, WAIT_MS);
      expect(rx.received.slice(5).map((r) => r.id)).toEqual(expect.arrayContaining(byCommit.map((r) => r.id)));
    });
  });

  describe('audit and secrets', () => {
    it('audits every call (committed before the answer) with resource_ids naming the endpoint and the delivery; no secret in the trail or the logs', async () => {
      const t = await integrator();
      const auditor = await tokenFor(http, await createClient(db, t.company, { scopes: ['audit.read'] }));
      const rx = await receiver();
      const api = as(t.token);
      const ids: Record<string, string> = {};
      const record = (name: string, res: request.Response, status: number) => {
        expect({ name, status: res.status }).toEqual({ name, status });
        ids[name] = res.headers['x-request-id'];
        return res;
      };
      const created = record('create', await api.post('/v1/webhook-endpoints', { url: rx.url }).set('Idempotency-Key', 'audit-key'), 201);
      const e = created.body.data;
      const base = `/v1/webhook-endpoints/${e.id}`;
      record('list', await api.get('/v1/webhook-endpoints'), 200);
      record('get', await api.get(base), 200);
      record('patch', await api.patch(base, { description: 'audited' }), 200);
      const test = record('test', await api.post(`${base}/test`), 202);
      const deliveryId = test.body.data.delivery_id;
      await eventually(async () => rx.received.length === 1, WAIT_MS);
      record('deliveries', await api.get(`${base}/deliveries`), 200);
      record('retry', await api.post(`${base}/deliveries/${deliveryId}/retry`), 202);
      record('replay', await api.post(`${base}/replay`, { from: new Date().toISOString() }), 202);
      const rotated = record('rotate', await api.post(`${base}/rotate-secret`), 200);
      record('delete', await api.delete(base), 204);
      const secrets = [e.secret, rotated.body.data.secret];

      // Fail-closed: each row was committed before its answer was sent.
      const rows: Json[] = await db.query('SELECT to_jsonb(a) AS row FROM audit_events a WHERE request_id = ANY($1)', [Object.values(ids)]);
      expect(rows).toHaveLength(Object.keys(ids).length);
      const trail = JSON.stringify(rows);
      for (const s of secrets) {
        expect(trail).not.toContain(s);
        expect(trail).not.toContain(s.slice('whsec_'.length));
      }

      const events: Json[] = (await as(auditor).get('/v1/audit-events?limit=100')).body.data;
      const event = (name: string) => events.find((x) => x.request_id === ids[name])!;
      const expected: Array<[string, string, string[]]> = [
        ['create', 'POST /v1/webhook-endpoints', [e.id]],
        ['list', 'GET /v1/webhook-endpoints', [e.id]],
        ['get', 'GET /v1/webhook-endpoints/{endpoint_id}', [e.id]],
        ['patch', 'PATCH /v1/webhook-endpoints/{endpoint_id}', [e.id]],
        ['test', 'POST /v1/webhook-endpoints/{endpoint_id}/test', [e.id]],
        ['deliveries', 'GET /v1/webhook-endpoints/{endpoint_id}/deliveries', [e.id]],
        ['retry', 'POST /v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry', [e.id, deliveryId]],
        ['replay', 'POST /v1/webhook-endpoints/{endpoint_id}/replay', [e.id]],
        ['rotate', 'POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret', [e.id]],
        ['delete', 'DELETE /v1/webhook-endpoints/{endpoint_id}', [e.id]],
      ];
      for (const [name, route, named] of expected) {
        expect({ name, event: event(name) }).toEqual({
          name,
          event: expect.objectContaining({
            route,
            resource_ids: expect.arrayContaining(named),
            client: expect.objectContaining({ id: t.client.clientId }),
          }),
        });
      }
      expect(event('retry').path_params).toEqual({ endpoint_id: e.id, delivery_id: deliveryId });
      for (const s of secrets) expect(JSON.stringify(events)).not.toContain(s);
    });

    it('never writes a secret to a log line: create (with a key), repeat, rotate and test on the second instance, its logs at debug level', async () => {
      const t = await integrator();
      const rx = await receiver();
      const token = await processToken(second.base, t.client);
      const call = (method: string, path: string, body?: Json, headers: Record<string, string> = {}) =>
        fetch(`${second.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
          body: body ? JSON.stringify(body) : undefined,
        });
      const createdRes = await call('POST', '/v1/webhook-endpoints', { url: rx.url }, { 'idempotency-key': 'logs-key' });
      expect(createdRes.status).toBe(201);
      const created = ((await createdRes.json()) as Json).data;
      const repeat = await call('POST', '/v1/webhook-endpoints', { url: rx.url }, { 'idempotency-key': 'logs-key' });
      expect(repeat.status).toBe(201);
      const rotatedRes = await call('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`);
      expect(rotatedRes.status).toBe(200);
      const rotated = ((await rotatedRes.json()) as Json).data;
      const ids = [createdRes, repeat, rotatedRes].map((r) => r.headers.get('x-request-id')!);
      // The in-process worker sends the test event (signed with both secrets).
      expect((await call('POST', `/v1/webhook-endpoints/${created.id}/test`)).status).toBe(202);
      await eventually(async () => rx.received.length === 1, WAIT_MS);
      await eventually(async () => ids.every((id) => second.output().includes(id)), 20_000);
      const logs = second.output();
      for (const s of [created.secret, rotated.secret]) {
        expect(logs).not.toContain(s);
        expect(logs).not.toContain(s.slice('whsec_'.length));
      }
    });
  });
});
