import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { REFUSAL_DELAY_MS } from '../../src/rate-limit/failed-auth-limit';
import { FILTERED_AUDIT_READ_UNITS } from '../../src/contract/rate-limit-policies';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { Company } from '../../src/companies/company.entity';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { basicAuth, createClient, requestToken, TestClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { rateLimitOf, parseRateLimitField, retryAfterOf } from '../support/rate-limit-headers';
import { explainSkip, RedisServer, redisMode, startRedisServer } from '../support/redis';
import { createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';

type Http = ReturnType<typeof request>;

const mode = redisMode();
if (mode === 'none') explainSkip('the rate limits shared through Redis');

/** A company and API clients of it, each with a token. */
async function tenant(db: DataSource, http: Http, clients = 1, scopes: Scope[] = ['meetings.read', 'calls.read']) {
  const company = await createCompany(db);
  const made: Array<TestClient & { token: string }> = [];
  for (let i = 0; i < clients; i++) {
    const client = await createClient(db, company, { scopes });
    made.push({ ...client, token: await tokenFor(http, client) });
  }
  return { company, clients: made };
}

const bearer = (http: Http, token: string, url: string) => http.get(url).set('Authorization', `Bearer ${token}`);

/** Sends the requests one after the other; their responses in order. */
async function inSequence(count: number, send: (i: number) => request.Test): Promise<request.Response[]> {
  const responses: request.Response[] = [];
  for (let i = 0; i < count; i++) responses.push(await send(i));
  return responses;
}

const remaining = (res: request.Response, policy: string) => rateLimitOf(res).state.get(policy)?.r;

describe('rate limits on /v1 (in-process counters)', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    [db, app] = await Promise.all([
      ownerDataSource(),
      createTestApp({
        env: {
          RATE_LIMIT_CLIENT: '5/60',
          RATE_LIMIT_COMPANY: '8/60',
          RATE_LIMIT_EMAIL_CONTENT: '3/60',
          RATE_LIMIT_CHAT_CONTENT: '3/60',
          RATE_LIMIT_WEBHOOK_ADMIN: '4/60',
        },
      }),
    ]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('carries RateLimit-Policy and RateLimit as structured fields, the client and company policies counting down', async () => {
    const { clients } = await tenant(db, http);
    const responses = await inSequence(3, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
    for (const [i, res] of responses.entries()) {
      const { policy, state } = rateLimitOf(res);
      expect(res.headers['ratelimit-policy']).toBe('"client";q=5;w=60, "company";q=8;w=60');
      expect([...policy.keys()]).toEqual(['client', 'company']);
      expect([...state.keys()]).toEqual(['client', 'company']);
      expect(state.get('client')!.r).toBe(4 - i);
      expect(state.get('company')!.r).toBe(7 - i);
      for (const name of ['client', 'company']) {
        expect(state.get(name)!.t).toBeGreaterThanOrEqual(1);
        expect(state.get(name)!.t).toBeLessThanOrEqual(60);
      }
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once the client policy is spent; another client of the company is not held by it', async () => {
    const { clients } = await tenant(db, http, 2);
    await inSequence(5, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
    const refused = await bearer(http, clients[0].token, '/v1/meetings');
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.type).toBe('RateLimitError');
    const { policy, state } = rateLimitOf(refused);
    expect([...policy.keys()]).toEqual(['client', 'company']);
    expect(state.get('client')!.r).toBe(0);
    expect(state.get('company')!.r).toBe(3);
    // Not earlier than the end of the violated window, and within it.
    expect(retryAfterOf(refused)).toBe(state.get('client')!.t);
    expect(retryAfterOf(refused)).toBeGreaterThanOrEqual(1);
    expect(retryAfterOf(refused)).toBeLessThanOrEqual(60);

    const other = await bearer(http, clients[1].token, '/v1/meetings').expect(200);
    expect(remaining(other, 'client')).toBe(4);
    expect(remaining(other, 'company')).toBe(2); // the refused request spent nothing
  });

  it('shares the company policy among the company clients, and spares other companies', async () => {
    const { clients } = await tenant(db, http, 3);
    await inSequence(5, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
    await inSequence(3, () => bearer(http, clients[1].token, '/v1/calls').expect(200));
    for (const client of [clients[1], clients[2]]) {
      const refused = await bearer(http, client.token, '/v1/meetings');
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      const { state } = rateLimitOf(refused);
      expect(state.get('company')!.r).toBe(0);
      expect(state.get('client')!.r).toBeGreaterThan(0);
      expect(retryAfterOf(refused)).toBe(state.get('company')!.t);
    }
    const elsewhere = (await tenant(db, http)).clients[0];
    const res = await bearer(http, elsewhere.token, '/v1/meetings').expect(200);
    expect(remaining(res, 'company')).toBe(7);
  });

  it('lets no client drain the company budget by retrying past its own quota', async () => {
    const { clients } = await tenant(db, http, 2);
    await inSequence(5, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
    const hammering = await Promise.all(Array.from({ length: 30 }, () => bearer(http, clients[0].token, '/v1/meetings')));
    expect(hammering.every((res) => res.status === 429)).toBe(true);
    const others = await inSequence(3, () => bearer(http, clients[1].token, '/v1/meetings').expect(200));
    expect(others.map((res) => remaining(res, 'company'))).toEqual([2, 1, 0]);
  });

  describe.each([
    { channel: 'emails', policy: 'email_content', other: 'chat', otherPolicy: 'chat_content' },
    { channel: 'chat', policy: 'chat_content', other: 'emails', otherPolicy: 'email_content' },
  ])('GET /v1/$channel/{id}/messages and …/messages/{message_id}', ({ channel, policy, other, otherPolicy }) => {
    it(`are governed by ${policy} besides client and company, one budget for both, and no other route is`, async () => {
      const { company, clients } = await tenant(db, http, 1, [...ALL_SCOPES]);
      const conversations = new ConversationsFactory(db, company.id);
      const seller = await new RecordingsFactory(db, company.id).user();
      const email = await conversations.thread(await conversations.mailbox(seller), 2, new Date('2026-05-01T10:00:00Z'));
      const chat = await conversations.chat({ seller, messages: [{ sentAt: new Date('2026-05-01T10:00:00Z') }] });
      const ids: Record<string, string> = { emails: email.conversation.publicId, chat: chat.publicId };
      const messages = (ch: string) => bearer(http, clients[0].token, `/v1/${ch}/${ids[ch]}/messages`);

      const counted = await inSequence(3, () => messages(channel).expect(200));
      expect(counted.map((res) => remaining(res, policy))).toEqual([2, 1, 0]);
      expect(counted[0].headers['ratelimit-policy']).toBe(`"client";q=5;w=60, "company";q=8;w=60, "${policy}";q=3;w=60`);

      const refused = await messages(channel);
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(remaining(refused, policy)).toBe(0);
      expect(remaining(refused, 'client')).toBe(2);
      expect(retryAfterOf(refused)).toBe(rateLimitOf(refused).state.get(policy)!.t);
      // A message by id draws on the same budget: spent by the pages, it is refused too.
      const one = await bearer(http, clients[0].token, `/v1/${channel}/${ids[channel]}/messages/${counted[0].body.data[0].id}`);
      expectError(one, 429, 'RATE_LIMIT_EXCEEDED');
      expect([...rateLimitOf(one).policy.keys()]).toEqual(['client', 'company', policy]);
      expect(remaining(one, policy)).toBe(0);
      expect(remaining(one, 'client')).toBe(2);

      // The conversation itself and the other channel's messages are not under this policy.
      const single = await bearer(http, clients[0].token, `/v1/${channel}/${ids[channel]}`).expect(200);
      expect([...rateLimitOf(single).policy.keys()]).toEqual(['client', 'company']);
      const otherMessages = await messages(other).expect(200);
      expect([...rateLimitOf(otherMessages).state.keys()]).toEqual(['client', 'company', otherPolicy]);
      expect(remaining(otherMessages, otherPolicy)).toBe(2);
    });
  });

  describe('order of checks: 401 → 403 API_ACCESS_DISABLED → 429 → 403 INSUFFICIENT_SCOPE → 400 → 404', () => {
    async function spent(): Promise<{ company: Company; token: string }> {
      const { company, clients } = await tenant(db, http);
      await inSequence(5, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
      return { company, token: clients[0].token };
    }

    it('answers 401 without counting or reporting state: RateLimit-Policy only', async () => {
      for (const res of [await http.get('/v1/meetings'), await bearer(http, 'not-a-token', '/v1/emails/eml_x/messages')]) {
        expect(res.status).toBe(401);
        expect(res.headers['ratelimit']).toBeUndefined();
        expect(parseRateLimitField(res.headers['ratelimit-policy']).size).toBeGreaterThanOrEqual(2);
      }
      const messages = await http.get('/v1/chat/wa_x/messages');
      expect([...parseRateLimitField(messages.headers['ratelimit-policy']).keys()]).toEqual(['client', 'company', 'chat_content']);
    });

    it('answers 403 API_ACCESS_DISABLED before 429', async () => {
      const { company, token } = await spent();
      await db.query('UPDATE companies SET api_access = false WHERE id = $1', [company.id]);
      const res = await bearer(http, token, '/v1/meetings');
      expectError(res, 403, 'API_ACCESS_DISABLED');
      expect(res.headers['ratelimit']).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBe('"client";q=5;w=60, "company";q=8;w=60');
    });

    it('answers 429 before 403 INSUFFICIENT_SCOPE, 400 and 404', async () => {
      const { token } = await spent();
      for (const url of ['/v1/emails', '/v1/meetings?limit=0', '/v1/meetings?verbose=1', '/v1/meetings/mtg_unknown']) {
        expectError(await bearer(http, token, url), 429, 'RATE_LIMIT_EXCEEDED');
      }
    });

    it('counts requests that fail later: 403 INSUFFICIENT_SCOPE, 400 and 404 each spend one', async () => {
      const { clients } = await tenant(db, http);
      const token = clients[0].token;
      const scope = await bearer(http, token, '/v1/emails');
      expectError(scope, 403, 'INSUFFICIENT_SCOPE');
      expect(remaining(scope, 'client')).toBe(4);
      const invalid = await bearer(http, token, '/v1/meetings?limit=0');
      expectError(invalid, 400, 'INVALID_LIMIT');
      expect(remaining(invalid, 'client')).toBe(3);
      const missing = await bearer(http, token, '/v1/meetings/mtg_unknown');
      expectError(missing, 404, 'RESOURCE_NOT_FOUND');
      expect(remaining(missing, 'client')).toBe(2);
    });
  });

  describe('GET /v1/context', () => {
    it('reports every policy of the caller from the same counters as the headers', async () => {
      const { clients } = await tenant(db, http, 2);
      await bearer(http, clients[1].token, '/v1/meetings').expect(200);
      await inSequence(2, () => bearer(http, clients[0].token, '/v1/calls').expect(200));
      const res = await bearer(http, clients[0].token, '/v1/context').expect(200);
      const { state } = rateLimitOf(res);
      const reported = Object.fromEntries(
        res.body.data.rate_limits.map((p: { policy: string }) => [p.policy, p]) as Array<[string, Record<string, number>]>,
      );
      expect(Object.keys(reported)).toEqual(['client', 'company', 'email_content', 'chat_content', 'export', 'webhook_admin', 'token']);
      expect(reported.client).toEqual({ policy: 'client', quota: 5, window: 60, remaining: 2, reset: state.get('client')!.t });
      expect(reported.company).toEqual({ policy: 'company', quota: 8, window: 60, remaining: 4, reset: state.get('company')!.t });
      expect(reported.email_content).toEqual({ policy: 'email_content', quota: 3, window: 60, remaining: 3, reset: 60 });
      expect(reported.chat_content).toEqual({ policy: 'chat_content', quota: 3, window: 60, remaining: 3, reset: 60 });
      expect(reported.webhook_admin).toEqual({ policy: 'webhook_admin', quota: 4, window: 60, remaining: 4, reset: 60 });
      expect(reported.token).toMatchObject({ policy: 'token', quota: 1_000_000, window: 60, remaining: 999_999 });
    });

    it('answers 429 like any route once the client policy is spent', async () => {
      const { clients } = await tenant(db, http);
      await inSequence(5, () => bearer(http, clients[0].token, '/v1/context').expect(200));
      expectError(await bearer(http, clients[0].token, '/v1/context'), 429, 'RATE_LIMIT_EXCEEDED');
    });
  });

  it('never limits or counts the probes', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => http.get(i % 2 ? '/health/live' : '/health/ready')));
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
      expect(res.headers['ratelimit']).toBeUndefined();
    }
  });
});

describe('cost units: include parts count toward the client and company policies by what they cost', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    [db, app] = await Promise.all([
      ownerDataSource(),
      createTestApp({ env: { RATE_LIMIT_CLIENT: '100/60', RATE_LIMIT_COMPANY: '40/60', RATE_LIMIT_CHAT_CONTENT: '30/60' } }),
    ]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('announces the cost in RateLimit-Policy and counts it in RateLimit; a plain request still costs one unit and carries the draft parameters only', async () => {
    const { clients } = await tenant(db, http, 1, [...ALL_SCOPES]);
    const token = clients[0].token;
    const heavy = await bearer(http, token, '/v1/meetings?limit=1&include=transcript,evaluation,answers').expect(200);
    expect(heavy.headers['ratelimit-policy']).toBe('"client";q=100;w=60;cost=15, "company";q=40;w=60;cost=15');
    expect([remaining(heavy, 'client'), remaining(heavy, 'company')]).toEqual([85, 25]);
    const transcript = await bearer(http, token, '/v1/calls?include=transcript').expect(200);
    expect(rateLimitOf(transcript).policy.get('company')).toEqual({ q: 40, w: 60, cost: 11 });
    expect(remaining(transcript, 'company')).toBe(14);
    const plain = await bearer(http, token, '/v1/meetings?limit=1').expect(200);
    expect(plain.headers['ratelimit-policy']).toBe('"client";q=100;w=60, "company";q=40;w=60');
    expect(remaining(plain, 'company')).toBe(13);
    // include=messages: 11 units of the base policies, one of the content policy (as a page of the messages route).
    const chat = await tenant(db, http, 1, [...ALL_SCOPES]);
    const messages = await bearer(http, chat.clients[0].token, '/v1/chat?include=messages').expect(200);
    expect(messages.headers['ratelimit-policy']).toBe('"client";q=100;w=60;cost=11, "company";q=40;w=60;cost=11, "chat_content";q=30;w=60');
    expect([remaining(messages, 'company'), remaining(messages, 'chat_content')]).toEqual([29, 29]);
    // Announced on answers given before the count too (401: the route's policies as this request would count them).
    const unauthenticated = await http.get('/v1/chat?include=messages').expect(401);
    expect(unauthenticated.headers['ratelimit-policy']).toBe(messages.headers['ratelimit-policy']);
  });

  it('a filtered read of the audit trail costs like a page of transcripts (it may examine 10,000 events); an unfiltered page costs one unit', async () => {
    const { clients } = await tenant(db, http, 1, [...ALL_SCOPES]);
    const token = clients[0].token;
    const plain = await bearer(http, token, '/v1/audit-events?limit=5').expect(200);
    expect(plain.headers['ratelimit-policy']).toBe('"client";q=100;w=60, "company";q=40;w=60');
    expect(remaining(plain, 'company')).toBe(39);
    const byStatus = await bearer(http, token, '/v1/audit-events?limit=5&status=5xx').expect(200);
    expect(rateLimitOf(byStatus).policy.get('company')).toEqual({ q: 40, w: 60, cost: 1 + FILTERED_AUDIT_READ_UNITS });
    expect(remaining(byStatus, 'company')).toBe(39 - 1 - FILTERED_AUDIT_READ_UNITS);
    // Every filter judged row by row, as announced before the count (401: as this request would count).
    for (const filter of ['route=GET%20%2Fv1%2Fmeetings', `client_id=${clients[0].clientId}`, 'resource_id=mtg_7Ks2vQpL9xWc4RtY8nBz3D']) {
      const announced = await http.get(`/v1/audit-events?limit=5&${filter}`).expect(401);
      const cost = 1 + FILTERED_AUDIT_READ_UNITS;
      expect(announced.headers['ratelimit-policy']).toBe(`"client";q=100;w=60;cost=${cost}, "company";q=40;w=60;cost=${cost}`);
    }
  });

  it('twenty heavy pages at once spend their company quota: 429 with Retry-After, while another company is served in full', async () => {
    const heavy = await tenant(db, http, 2, [...ALL_SCOPES]);
    const quiet = await tenant(db, http, 1, [...ALL_SCOPES]);
    const pages = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        bearer(http, heavy.clients[i % 2].token, '/v1/meetings?limit=100&include=transcript,evaluation,answers'),
      ),
    );
    // 40 units: three pages of 15 are admitted (the third with 10 units left), every other is refused.
    expect(pages.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = pages.filter((r) => r.status === 429);
    expect(refused).toHaveLength(17);
    for (const res of refused) {
      expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
      expect(remaining(res, 'company')).toBe(0);
      expect(retryAfterOf(res)).toBeGreaterThanOrEqual(1);
    }
    // Even a plain request of that company waits for the window; another company's are all served.
    expectError(await bearer(http, heavy.clients[0].token, '/v1/meetings?limit=1'), 429, 'RATE_LIMIT_EXCEEDED');
    const others = await Promise.all(Array.from({ length: 20 }, () => bearer(http, quiet.clients[0].token, '/v1/meetings?limit=100')));
    expect(others.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(Math.min(...others.map((r) => remaining(r, 'company')!))).toBe(20);
  });
});

describe('the policy set of every route', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('applies to each documented operation exactly the policies it documents: two on /v1, three on a messages route (a page or one message), token on the token endpoint', async () => {
    const { body: document } = await http.get('/openapi.json').expect(200);
    const { clients } = await tenant(db, http, 1, [...ALL_SCOPES]);
    const expected = (path: string) =>
      path === '/oauth/token'
        ? ['token']
        : /\/messages(\/|$)/.test(path)
          ? ['client', 'company', path.startsWith('/v1/emails') ? 'email_content' : 'chat_content']
          : path === '/v1/export'
            ? ['client', 'company', 'export']
            : path.startsWith('/v1/webhook-endpoints')
              ? ['client', 'company', 'webhook_admin']
              : ['client', 'company'];
    const checked: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { 'x-rate-limit-policies'?: string[] }>>(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const url = path.replace(/\{[^}]+\}/g, 'x_unknown');
        // Each with its method (the webhook endpoints' writes: a body that passes, an id that does not exist).
        const res =
          path === '/oauth/token'
            ? await requestToken(http, clients[0])
            : await http[method as 'get' | 'post' | 'patch' | 'delete'](url)
                .set('Authorization', `Bearer ${clients[0].token}`)
                .send(
                  method === 'patch' ? { enabled: true } : method === 'post' ? { url: 'https://93.184.216.34/x', from: 'x' } : undefined,
                )
                .expect((r) => expect([200, 201, 400, 404]).toContain(r.status));
        expect(operation['x-rate-limit-policies']).toEqual(expected(path));
        expect([...rateLimitOf(res).policy.keys()]).toEqual(expected(path));
        expect([...rateLimitOf(res).state.keys()]).toEqual(expected(path));
        checked.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(checked).toHaveLength(35); // the token endpoint, context, 6 meetings, 6 calls, 4 emails, 4 chat routes, the change feed, the export, the audit events, 10 webhook endpoint routes
  });
});

describe('rate limits on POST /oauth/token', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { RATE_LIMIT_TOKEN: '3/60', TRUST_PROXY: 'loopback' } })]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  let address = 0;
  const newAddress = () => `198.51.100.${++address}`;
  const fromAddress = (ip: string, client: TestClient, secret = client.clientSecret) =>
    requestToken(http, { clientId: client.clientId, clientSecret: secret }).set('X-Forwarded-For', ip);
  const newClient = async () => createClient(db, await createCompany(db));

  it('carries RateLimit-Policy and RateLimit for the token policy', async () => {
    const res = await fromAddress(newAddress(), await newClient()).expect(200);
    expect(res.headers['ratelimit-policy']).toBe('"token";q=3;w=60');
    expect(remaining(res, 'token')).toBe(2);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 429 RATE_LIMIT_EXCEEDED in the OAuth shape with Retry-After once the quota is spent', async () => {
    const ip = newAddress();
    const client = await newClient();
    await inSequence(3, () => fromAddress(ip, client).expect(200));
    const refused = await fromAddress(ip, client);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'RATE_LIMIT_EXCEEDED', error_description: expect.any(String) });
    expect(remaining(refused, 'token')).toBe(0);
    expect(retryAfterOf(refused)).toBe(rateLimitOf(refused).state.get('token')!.t);
    expect(refused.headers['cache-control']).toBe('no-store');
  });

  it('counts per address and per client id at that address: the same client from another address has its own budget', async () => {
    const [ip, elsewhere] = [newAddress(), newAddress()];
    const [spentClient, freshClient] = [await newClient(), await newClient()];
    await inSequence(3, () => fromAddress(ip, spentClient).expect(200));
    expect((await fromAddress(ip, freshClient)).status).toBe(429); // the address is spent
    const issued = await fromAddress(elsewhere, spentClient).expect(200); // the client id, at another address, is not
    expect(remaining(issued, 'token')).toBe(2);
    expect((await fromAddress(elsewhere, freshClient)).status).toBe(200);
  });

  it("cannot lock a victim out: failed attempts naming its client id elsewhere spend only the attacker's budgets", async () => {
    const [attacker, victimAddress] = [newAddress(), newAddress()];
    const victim = await newClient();
    for (let i = 0; i < 3; i++) expect((await fromAddress(attacker, victim, 'secret_guessed')).status).toBe(401);
    expect((await fromAddress(attacker, victim, 'secret_guessed')).status).toBe(429); // the attacker is throttled
    expect((await fromAddress(attacker, victim)).status).toBe(429); // even with the right secret, from there
    const own = await fromAddress(victimAddress, victim).expect(200); // the victim, from its own address, is not
    expect(remaining(own, 'token')).toBe(2);
    await fromAddress(victimAddress, victim).expect(200);
  });

  it('counts failed client authentication like success, whether in the body or with Basic', async () => {
    const ip = newAddress();
    const client = await newClient();
    expect((await fromAddress(ip, client, 'secret_wrong')).status).toBe(401);
    const basic = await http
      .post('/oauth/token')
      .type('form')
      .set('X-Forwarded-For', newAddress())
      .set('Authorization', basicAuth(client.clientId, 'secret_wrong'))
      .send({ grant_type: 'client_credentials' });
    expect(basic.status).toBe(401);
    expect(remaining(basic, 'token')).toBe(2); // another address: its client id there was counted once
    expect((await fromAddress(ip, client, 'secret_wrong')).status).toBe(401);
    expect((await fromAddress(ip, client, 'secret_wrong')).status).toBe(401);
    expect((await fromAddress(ip, client)).status).toBe(429); // three failures spent this address's budget
  });

  it('counts an IPv6 client by its /64', async () => {
    const client = await newClient();
    await inSequence(3, (i) =>
      requestToken(http, client)
        .set('X-Forwarded-For', `2001:db8:7:1::${i + 1}`)
        .expect(200),
    );
    const other = await newClient();
    expect((await requestToken(http, other).set('X-Forwarded-For', '2001:db8:7:1:ffff::9')).status).toBe(429);
    expect((await requestToken(http, other).set('X-Forwarded-For', '2001:db8:7:2::1')).status).toBe(200);
  });

  it('names the policy on answers given before the count (415, 413)', async () => {
    const unsupported = await http.post('/oauth/token').set('Content-Type', 'application/json').send('{}');
    expect(unsupported.status).toBe(415);
    expect(unsupported.headers['ratelimit-policy']).toBe('"token";q=3;w=60');
    const large = await http
      .post('/oauth/token')
      .type('form')
      .send(`grant_type=client_credentials&pad=${'x'.repeat(9000)}`);
    expect(large.status).toBe(413);
    expect(large.headers['ratelimit-policy']).toBe('"token";q=3;w=60');
  });
});

describe('rate-limit windows', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { RATE_LIMIT_CLIENT: '2/1' } })]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('serves again once Retry-After seconds have passed, with a whole new window', async () => {
    const { clients } = await tenant(db, http);
    await inSequence(2, () => bearer(http, clients[0].token, '/v1/meetings').expect(200));
    const refused = await bearer(http, clients[0].token, '/v1/meetings');
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(retryAfterOf(refused)).toBe(1);
    await sleep(retryAfterOf(refused) * 1000 + 50);
    const again = await bearer(http, clients[0].token, '/v1/meetings').expect(200);
    expect(rateLimitOf(again).state.get('client')).toEqual({ r: 1, t: 1 });
  });
});

(mode === 'none' ? describe.skip : describe)('rate limits shared through Redis', () => {
  let redis: RedisServer | undefined;
  let url: string;
  let db: DataSource;
  const apps: NestExpressApplication[] = [];
  let one: Http;
  let two: Http;

  const instance = async (env: NodeJS.ProcessEnv = {}) => {
    const app = await createTestApp({
      env: { REDIS_URL: url, RATE_LIMIT_CLIENT: '20/60', RATE_LIMIT_TOKEN: '4/60', TRUST_PROXY: 'loopback', ...env },
    });
    apps.push(app);
    return request(app.getHttpServer());
  };

  beforeAll(async () => {
    redis = mode === 'server' ? await startRedisServer() : undefined;
    url = redis?.url ?? process.env.REDIS_URL!;
    db = await ownerDataSource();
    [one, two] = await Promise.all([instance(), instance()]);
  });
  afterAll(async () => {
    await Promise.all([db.destroy(), ...apps.map((app) => app.close())]);
    await redis?.stop();
  });

  it('two instances add up to one budget: the combined client quota is never exceeded', async () => {
    const { clients } = await tenant(db, one);
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => bearer(i % 2 ? one : two, clients[0].token, '/v1/meetings')));
    const served = responses.filter((res) => res.status === 200);
    expect(served).toHaveLength(20);
    expect(responses.filter((res) => res.status === 429)).toHaveLength(40);
    // Every served request saw its own count: 19 down to 0, each once.
    expect(served.map((res) => remaining(res, 'client')).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const res of responses.filter((r) => r.status === 429)) expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
  });

  it('counts a costly request by its cost in the shared counters', async () => {
    const { clients } = await tenant(db, one, 1, [...ALL_SCOPES]);
    const heavy = await bearer(one, clients[0].token, '/v1/meetings?limit=1&include=transcript').expect(200);
    expect(rateLimitOf(heavy).policy.get('client')).toEqual({ q: 20, w: 60, cost: 11 });
    expect(remaining(heavy, 'client')).toBe(9);
    const again = await bearer(two, clients[0].token, '/v1/meetings?limit=1&include=transcript').expect(200);
    expect(remaining(again, 'client')).toBe(0);
    expectError(await bearer(one, clients[0].token, '/v1/meetings?limit=1'), 429, 'RATE_LIMIT_EXCEEDED');
  });

  it('shares the token budget of an address across instances', async () => {
    const client = await createClient(db, await createCompany(db));
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => requestToken(i % 2 ? one : two, client).set('X-Forwarded-For', '203.0.113.50')),
    );
    expect(responses.filter((res) => res.status === 200)).toHaveLength(4);
    expect(responses.filter((res) => res.status === 429)).toHaveLength(6);
  });

  (mode === 'server' ? describe : describe.skip)('Redis outages', () => {
    async function expectFastUnavailable(http: Http, token: string, client: TestClient) {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await bearer(http, token, '/v1/meetings');
        expect(Date.now() - started).toBeLessThan(1000);
        expectError(res, 503, 'SERVICE_UNAVAILABLE');
      }
      const started = Date.now();
      const tokenRes = await requestToken(http, client).set('X-Forwarded-For', '203.0.113.77');
      expect(Date.now() - started).toBeLessThan(1000);
      expect(tokenRes.status).toBe(503);
      expect(tokenRes.body).toEqual({ error: 'SERVICE_UNAVAILABLE', error_description: expect.any(String) });
      const ready = await http.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.error?.redis?.status ?? ready.body.details?.redis?.status).toBe('down');
    }

    async function expectRecovery(http: Http, token: string) {
      await eventually(async () => (await http.get('/health/ready')).status === 200, 10_000);
      await eventually(async () => (await bearer(http, token, '/v1/meetings')).status === 200, 5_000);
    }

    it('answers 503 within a second while Redis is stopped, readiness 503, and recovers when it restarts', async () => {
      const { clients } = await tenant(db, one);
      await bearer(one, clients[0].token, '/v1/meetings').expect(200);
      await redis!.stop();
      await expectFastUnavailable(one, clients[0].token, clients[0]);
      await expectFastUnavailable(two, clients[0].token, clients[0]);
      await redis!.start();
      await expectRecovery(one, clients[0].token);
      await expectRecovery(two, clients[0].token);
    });

    it('answers 503 within a second while Redis hangs, and recovers when it answers again', async () => {
      const { clients } = await tenant(db, one);
      redis!.pause();
      try {
        await expectFastUnavailable(one, clients[0].token, clients[0]);
      } finally {
        redis!.resume();
      }
      await expectRecovery(one, clients[0].token);
    });

    it('starts while Redis is down, answers 503, and serves once Redis is up', async () => {
      const { clients } = await tenant(db, one);
      await redis!.stop();
      const late = await instance();
      await expectFastUnavailable(late, clients[0].token, clients[0]);
      await redis!.start();
      await expectRecovery(late, clients[0].token);
    });
  });
});

describe('failed authentication per address (RATE_LIMIT_UNAUTHENTICATED)', () => {
  const LIMIT = 20;
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED: `${LIMIT}/60`, TRUST_PROXY: 'loopback' } });
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After to the failures of an address past its limit, and to its token requests; a valid token from it is served, another address too', async () => {
    const { clients } = await tenant(db, http);
    const [client] = clients;
    const [flooder, neighbour] = ['203.0.113.10', '203.0.113.11'];
    const failures = await inSequence(LIMIT, () => bearer(http, 'not-a-token', '/v1/meetings').set('X-Forwarded-For', flooder));
    expect(failures.map((r) => r.status)).toEqual(Array(LIMIT).fill(401));
    const asked = Date.now();
    const refused = await bearer(http, 'not-a-token', '/v1/meetings').set('X-Forwarded-For', flooder);
    // Held before it is answered: a flood's connection asks once a second, not as fast as it is answered.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(REFUSAL_DELAY_MS);
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    // A client behind the same address (a NAT shared with the flood) is not locked out with it.
    await bearer(http, client.token, '/v1/meetings').set('X-Forwarded-For', flooder).expect(200);
    expect(retryAfterOf(refused)).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-policy']).toBe(`"unauthenticated";q=${LIMIT};w=60`);
    const token = await requestToken(http, client).set('X-Forwarded-For', flooder);
    expect({ status: token.status, error: token.body.error }).toEqual({ status: 429, error: 'RATE_LIMIT_EXCEEDED' });
    await bearer(http, client.token, '/v1/meetings').set('X-Forwarded-For', neighbour).expect(200);
    await bearer(http, 'not-a-token', '/v1/meetings').set('X-Forwarded-For', neighbour).expect(401);
    await requestToken(http, client).set('X-Forwarded-For', neighbour).expect(200);
  });

  it('counts failed client authentication at the token endpoint toward the same address', async () => {
    const { clients } = await tenant(db, http);
    const address = '203.0.113.12';
    const wrong = { clientId: clients[0].clientId, clientSecret: 'wrong' };
    const answers = await inSequence(LIMIT + 1, () => requestToken(http, wrong).set('X-Forwarded-For', address));
    expect(answers.map((r) => r.status)).toEqual([...Array(LIMIT).fill(401), 429]);
    expectError(await bearer(http, 'not-a-token', '/v1/meetings').set('X-Forwarded-For', address), 429, 'RATE_LIMIT_EXCEEDED');
  });

  it('records a flood in far fewer audit rows than requests, their attempts adding up to every request, by address and reason', async () => {
    // An app of its own: closing it writes the rows its windows still gather.
    const flooded = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED: `${LIMIT}/60`, TRUST_PROXY: 'loopback' } });
    const address = '203.0.113.13';
    const REQUESTS = 300;
    try {
      const server = request(flooded.getHttpServer());
      const statuses: number[] = [];
      for (let sent = 0; sent < REQUESTS; sent += 150) {
        const batch = Array.from({ length: 150 }, () => bearer(server, 'not-a-token', '/v1/meetings').set('X-Forwarded-For', address));
        statuses.push(...(await Promise.all(batch)).map((r) => r.status));
      }
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(LIMIT);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    } finally {
      await flooded.close();
    }
    const rows: Array<{ status: number; rows: number; attempts: number }> = await db.query(
      `SELECT status, count(*)::int AS rows, sum(attempts)::int AS attempts FROM audit_events WHERE address = $1 GROUP BY status ORDER BY status`,
      [address],
    );
    expect(rows.reduce((sum, r) => sum + r.attempts, 0)).toBe(REQUESTS);
    // Per reason: ten rows of their own, then one for the rest of the window.
    for (const r of rows) expect(r.rows).toBeLessThanOrEqual(11);
    expect(rows.map((r) => r.status)).toEqual([401, 429]);
  });
});
