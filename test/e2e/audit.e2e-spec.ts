import { createServer } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditRecord } from '../../src/audit/audit-reader';
import { AuditEvent } from '../../src/audit/audit-event';
import { AuditTrail } from '../../src/audit/audit-trail';
import { newRequestId } from '../../src/common/http/request-id.middleware';
import { Company } from '../../src/companies/company.entity';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref } from '../../src/seeding/recordings.factory';
import { createClient, requestToken, TestClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';

/** A row as the table holds it (the CLI's record, with the instant as a Date). */
type AuditRow = Omit<AuditRecord, 'occurred_at'> & { occurred_at: Date };

const ALL = [
  'meetings.read',
  'calls.read',
  'transcriptions.read',
  'emails.read',
  'emails.content.read',
  'chat.read',
  'chat.content.read',
] as const;

/** A free local port with nothing listening on it: an unreachable database. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('audit trail', () => {
  let db: DataSource;
  let company: Company;
  let client: TestClient;
  let meeting: Ref;
  let call: Ref;
  let email: Ref;
  let emailMessage: Ref;
  let chat: Ref;
  let chatMessage: Ref;

  /** The rows of a request id, read as the schema owner of `where`. */
  const rowsOf = async (where: DataSource | Client, requestId: string): Promise<AuditRow[]> => {
    const sql = 'SELECT * FROM audit_events WHERE request_id = $1';
    return where instanceof Client ? (await where.query(sql, [requestId])).rows : where.query(sql, [requestId]);
  };

  beforeAll(async () => {
    db = await ownerDataSource();
    company = await createCompany(db);
    const people = new RecordingsFactory(db, company.id);
    const owner = await people.user();
    const template = await people.template([{ text: 'Orçamento?', type: 'number' }]);
    meeting = await people.recording('meeting', { owner, template, transcript: 'enhanced', evaluation: 'completed' });
    call = await people.recording('call', { owner, transcript: 'original' });
    const conversations = new ConversationsFactory(db, company.id);
    const thread = await conversations.thread(await conversations.mailbox(owner), 2, new Date('2026-01-01T00:00:00Z'));
    [email, emailMessage] = [thread.conversation, thread.messages[1]];
    const chatRef = await conversations.chat({ seller: owner, messages: [{}, {}] });
    [chat, chatMessage] = [chatRef, chatRef.messages[0]];
    client = await createClient(db, company, { scopes: [...ALL] });
  });
  afterAll(() => db.destroy());

  describe('in the main database', () => {
    let app: NestExpressApplication;
    let http: ReturnType<typeof request>;
    let token: string;

    beforeAll(async () => {
      app = await createTestApp();
      http = request(app.getHttpServer());
      token = await tokenFor(http, client);
    });
    afterAll(() => app.close());

    const get = (url: string, bearer = token) => http.get(url).set('Authorization', `Bearer ${bearer}`);

    it.each([
      ['GET /v1/meetings', () => '/v1/meetings?limit=5&type=video', {}],
      ['GET /v1/meetings/{meeting_id}', () => `/v1/meetings/${meeting.publicId}`, () => ({ meeting_id: meeting.publicId })],
      [
        'GET /v1/meetings/{meeting_id}/evaluations/overall',
        () => `/v1/meetings/${meeting.publicId}/evaluations/overall`,
        () => ({ meeting_id: meeting.publicId }),
      ],
      ['GET /v1/meetings/{meeting_id}/answers', () => `/v1/meetings/${meeting.publicId}/answers`, () => ({ meeting_id: meeting.publicId })],
      [
        'GET /v1/meetings/{meeting_id}/transcript',
        () => `/v1/meetings/${meeting.publicId}/transcript`,
        () => ({ meeting_id: meeting.publicId }),
      ],
      ['GET /v1/calls', () => '/v1/calls', {}],
      ['GET /v1/calls/{call_id}', () => `/v1/calls/${call.publicId}`, () => ({ call_id: call.publicId })],
      [
        'GET /v1/calls/{call_id}/evaluations/overall',
        () => `/v1/calls/${call.publicId}/evaluations/overall`,
        () => ({ call_id: call.publicId }),
      ],
      ['GET /v1/calls/{call_id}/answers', () => `/v1/calls/${call.publicId}/answers`, () => ({ call_id: call.publicId })],
      ['GET /v1/calls/{call_id}/transcript', () => `/v1/calls/${call.publicId}/transcript`, () => ({ call_id: call.publicId })],
      ['GET /v1/emails', () => '/v1/emails?last_message_after=2025-01-01T00:00:00Z', {}],
      ['GET /v1/emails/{email_id}', () => `/v1/emails/${email.publicId}`, () => ({ email_id: email.publicId })],
      ['GET /v1/emails/{email_id}/messages', () => `/v1/emails/${email.publicId}/messages`, () => ({ email_id: email.publicId })],
      [
        'GET /v1/emails/{email_id}/messages/{message_id}',
        () => `/v1/emails/${email.publicId}/messages/${emailMessage.publicId}`,
        () => ({ email_id: email.publicId, message_id: emailMessage.publicId }),
      ],
      ['GET /v1/chat', () => '/v1/chat', {}],
      ['GET /v1/chat/{chat_id}', () => `/v1/chat/${chat.publicId}`, () => ({ chat_id: chat.publicId })],
      ['GET /v1/chat/{chat_id}/messages', () => `/v1/chat/${chat.publicId}/messages`, () => ({ chat_id: chat.publicId })],
      [
        'GET /v1/chat/{chat_id}/messages/{message_id}',
        () => `/v1/chat/${chat.publicId}/messages/${chatMessage.publicId}`,
        () => ({ chat_id: chat.publicId, message_id: chatMessage.publicId }),
      ],
      ['GET /v1/context', () => '/v1/context', {}],
    ])('%s writes exactly one row, committed before the answer, with who, what and the ids returned', async (route, url, params) => {
      const res = await get(url()).expect(200);
      const rows = await rowsOf(db, res.headers['x-request-id']);
      expect(rows).toHaveLength(1);
      const [row] = rows;
      const data = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
      const returned = data
        .map((d: { id?: string; meeting_id?: string }) => (typeof d.id === 'string' ? d.id : d.meeting_id))
        .filter(Boolean);
      expect(row).toMatchObject({
        request_id: res.headers['x-request-id'],
        company: company.publicId,
        client: client.clientId,
        address: expect.stringMatching(/127\.0\.0\.1|::1/),
        method: 'GET',
        route,
        path_params: typeof params === 'function' ? params() : params,
        status: 200,
        resource_ids: returned,
      });
      expect(row.occurred_at.getTime()).toBeLessThanOrEqual(Date.now());
      expect(Date.now() - row.occurred_at.getTime()).toBeLessThan(60_000);
    });

    it('audits every route however its path is spelled: a variant answers 404 or writes its row', async () => {
      const paths = [
        '/v1/context',
        '/v1/meetings',
        `/v1/meetings/${meeting.publicId}`,
        `/v1/meetings/${meeting.publicId}/evaluations/overall`,
        `/v1/meetings/${meeting.publicId}/answers`,
        `/v1/meetings/${meeting.publicId}/transcript`,
        '/v1/calls',
        `/v1/calls/${call.publicId}`,
        `/v1/calls/${call.publicId}/evaluations/overall`,
        `/v1/calls/${call.publicId}/answers`,
        `/v1/calls/${call.publicId}/transcript`,
        '/v1/emails',
        `/v1/emails/${email.publicId}`,
        `/v1/emails/${email.publicId}/messages`,
        `/v1/emails/${email.publicId}/messages/${emailMessage.publicId}`,
        '/v1/chat',
        `/v1/chat/${chat.publicId}`,
        `/v1/chat/${chat.publicId}/messages`,
        `/v1/chat/${chat.publicId}/messages/${chatMessage.publicId}`,
      ];
      expect(paths).toHaveLength(19); // every /v1 route (the token endpoint follows)
      const encodeLetters = (segment: string) => segment.replace(/[a-z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
      const variants = (path: string) => [
        path.toUpperCase(),
        path.replace('/v1/', '/V1/'),
        path.replace(/\/([a-z]+)/, (_m, s: string) => `/${s[0].toUpperCase()}${s.slice(1)}`),
        `${path}/`,
        `/${path}`,
        path.replace('/v1/', '/v1//'),
        path.replace(/\/([a-z]+)$/, (_m, s: string) => `/${encodeLetters(s)}`),
        path.replace(/\/(mtg|call|eml|wa)_/, (_m, p: string) => `/${encodeLetters(p)}_`),
        path.replace('/v1/', '/%76%31/'),
      ];
      let answered = 0;
      for (const path of paths) {
        for (const variant of new Set(variants(path).filter((v) => v !== path))) {
          const res = await get(variant);
          if (res.status === 404) continue;
          answered++;
          expect({ variant, status: res.status }).toEqual({ variant, status: 200 });
          expect({ variant, rows: (await rowsOf(db, res.headers['x-request-id'])).length }).toEqual({ variant, rows: 1 });
        }
      }
      // Percent-encoded letters inside an id are the same id (the router decodes parameters): those are answered, and audited.
      expect(answered).toBeGreaterThan(0);
      for (const variant of ['/OAUTH/TOKEN', '/oauth/token/', '//oauth/token', '/oauth/%74oken', '/Oauth/token']) {
        const answer = await http
          .post(variant)
          .type('form')
          .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
        expect({ variant, status: answer.status }).toEqual({ variant, status: 404 });
        expect(answer.body.access_token).toBeUndefined();
      }
    });

    it('records the query without the cursor', async () => {
      const first = await get(`/v1/chat/${chat.publicId}/messages?limit=1`).expect(200);
      const cursor: string = first.body.pagination.next_cursor;
      expect(cursor).toMatch(/^cur_/);
      const res = await get(`/v1/chat/${chat.publicId}/messages?limit=1&cursor=${cursor}`).expect(200);
      const [row] = await rowsOf(db, res.headers['x-request-id']);
      expect(row.query).toEqual({ limit: '1' });
      expect(JSON.stringify(row)).not.toContain(cursor);
      const filtered = await get('/v1/meetings?limit=2&type=video').expect(200);
      expect((await rowsOf(db, filtered.headers['x-request-id']))[0].query).toEqual({ limit: '2', type: 'video' });
    });

    async function eventuallyRows(requestId: string): Promise<AuditRow[]> {
      let rows: AuditRow[] = [];
      await eventually(async () => (rows = await rowsOf(db, requestId)).length > 0, 5000);
      return rows;
    }

    it.each([
      ['401 without a token', () => http.get('/v1/meetings'), 401, null, 'GET /v1/meetings'],
      ['401 for an invalid token', () => get('/v1/meetings', 'x'), 401, null, 'GET /v1/meetings'],
      ['404 for a foreign id', () => get('/v1/meetings/mtg_0000000000000000000000'), 404, 'company', 'GET /v1/meetings/{meeting_id}'],
      ['400 for a bad filter', () => get('/v1/meetings?type=text'), 400, 'company', 'GET /v1/meetings'],
      ['404 for an unknown route', () => get('/v1/nothing-here'), 404, null, null],
    ])('records a failed request (%s) on a best-effort basis', async (_name, send, status, who, route) => {
      const res = await send();
      expect(res.status).toBe(status);
      const [row] = await eventuallyRows(res.headers['x-request-id']);
      expect(row).toMatchObject({ status, route, resource_ids: [] });
      if (who === 'company') expect(row.company).toBe(company.publicId);
    });

    it('records a path and a query holding NUL characters, with U+FFFD in their place', async () => {
      const res = await get('/v1/meetings/a%00b?x%00=%00');
      expect(res.status).toBe(400);
      const [row] = await eventuallyRows(res.headers['x-request-id']);
      expect(row).toMatchObject({ status: 400, path_params: { meeting_id: 'a\uFFFDb' }, query: { 'x\uFFFD': '\uFFFD' } });
    });

    it('writes the other rows of a batch when the database refuses one, so only that request fails', async () => {
      const trail = app.get(AuditTrail);
      const event = (pathParams: Record<string, string>): AuditEvent => ({
        occurredAt: new Date(),
        requestId: newRequestId(),
        company: company.publicId,
        client: null,
        address: null,
        method: 'GET',
        route: null,
        pathParams,
        query: {},
        status: 404,
        resourceIds: [],
        truncated: false,
      });
      // Recorded in one turn of the event loop: one batch. PostgreSQL refuses NUL in jsonb.
      const events = [event({}), event({ id: 'a\u0000b' }), event({})];
      const before = { ...trail.stats };
      const outcomes = await Promise.allSettled(events.map((e) => trail.record(e)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const counts = await Promise.all(events.map(async (e) => (await rowsOf(db, e.requestId)).length));
      expect(counts).toEqual([1, 0, 1]);
      expect(trail.stats.written - before.written).toBe(2);
    });

    it('records token issuance, success and failure, and never a secret or a token', async () => {
      const ok = await requestToken(http, client);
      expect(ok.status).toBe(200);
      const bad = await requestToken(http, { clientId: client.clientId, clientSecret: 'secret_wrong' });
      expect(bad.status).toBe(401);
      const [success] = await eventuallyRows(ok.headers['x-request-id']);
      expect(success).toMatchObject({
        method: 'POST',
        route: 'POST /oauth/token',
        status: 200,
        client: client.clientId,
        company: company.publicId,
      });
      const [failure] = await eventuallyRows(bad.headers['x-request-id']);
      // Refused, but naming an existing client: its company's to see (GET /v1/audit-events).
      expect(failure).toMatchObject({ route: 'POST /oauth/token', status: 401, client: client.clientId, company: company.publicId });
      // A client id that exists nowhere is attributed to no company.
      const unknown = await requestToken(http, { clientId: `cli_${'0'.repeat(22)}`, clientSecret: 'secret_wrong' });
      const [nobody] = await eventuallyRows(unknown.headers['x-request-id']);
      expect(nobody).toMatchObject({ route: 'POST /oauth/token', status: 401, client: `cli_${'0'.repeat(22)}`, company: null });
      // A client that puts its token in the query string does not get it recorded either.
      const leaky = await http.get(`/v1/meetings?access_token=${ok.body.access_token}`);
      const [leak] = await eventuallyRows(leaky.headers['x-request-id']);
      expect(leak.query).toEqual({ access_token: '[redacted]' });
      for (const secret of [client.clientSecret, 'secret_wrong', ok.body.access_token, token]) {
        const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM audit_events a WHERE row_to_json(a)::text LIKE '%' || $1 || '%'`, [
          secret,
        ]);
        expect({ secret: secret.slice(0, 12), n }).toEqual({ secret: secret.slice(0, 12), n: 0 });
      }
    });

    it('matches 200 answers and audit rows one to one under 200 concurrent requests, in far fewer commits', async () => {
      const trail = app.get(AuditTrail);
      const before = { ...trail.stats };
      const urls = [`/v1/meetings/${meeting.publicId}`, '/v1/calls', `/v1/chat/${chat.publicId}/messages`, '/v1/emails'];
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => get(urls[i % urls.length])));
      const ok = responses.filter((r) => r.status === 200).map((r) => r.headers['x-request-id']);
      expect(ok).toHaveLength(200);
      const rows: Array<{ request_id: string; n: number }> = await db.query(
        'SELECT request_id, count(*)::int AS n FROM audit_events WHERE request_id = ANY($1) GROUP BY request_id',
        [ok],
      );
      expect(rows).toHaveLength(200);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(trail.stats.written - before.written).toBeGreaterThanOrEqual(200);
      expect(trail.stats.batches - before.batches).toBeLessThan(200);
    });

    it('reports the audit store in readiness', async () => {
      const res = await http.get('/health/ready').expect(200);
      expect(res.body.details.audit).toMatchObject({ status: 'up' });
    });
  });

  describe('in a separate audit database that fails', () => {
    const TIMEOUT = 600;
    let app: NestExpressApplication;
    let http: ReturnType<typeof request>;
    let token: string;
    let auditOwner: Client;
    const apiRole = () => decodeURIComponent(new URL(process.env.TEST_AUDIT_DATABASE_URL!).username);

    beforeAll(async () => {
      app = await createTestApp({ env: { AUDIT_DATABASE_URL: process.env.TEST_AUDIT_DATABASE_URL, AUDIT_TIMEOUT_MS: String(TIMEOUT) } });
      http = request(app.getHttpServer());
      token = await tokenFor(http, client);
      auditOwner = new Client({ connectionString: process.env.TEST_AUDIT_MIGRATION_DATABASE_URL });
      await auditOwner.connect();
    });
    afterAll(async () => {
      await auditOwner.query(`GRANT INSERT ON audit_events TO "${apiRole()}"`);
      await Promise.all([app.close(), auditOwner.end()]);
    });

    const read = () => http.get(`/v1/meetings/${meeting.publicId}`).set('Authorization', `Bearer ${token}`);

    it('writes the rows there and not in the main database', async () => {
      const res = await read().expect(200);
      expect(await rowsOf(auditOwner, res.headers['x-request-id'])).toHaveLength(1);
      expect(await rowsOf(db, res.headers['x-request-id'])).toHaveLength(0);
    });

    it('answers 503 AUDIT_UNAVAILABLE without the data when the insert is refused, and 200 again once it is allowed, without a restart', async () => {
      await auditOwner.query(`REVOKE INSERT ON audit_events FROM "${apiRole()}"`);
      try {
        const res = await read();
        expectError(res, 503, 'AUDIT_UNAVAILABLE');
        expect(res.body.data).toBeUndefined();
        expect(JSON.stringify(res.body)).not.toContain(meeting.publicId);
        const ready = await http.get('/health/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.details.audit.status).toBe('down');
      } finally {
        await auditOwner.query(`GRANT INSERT ON audit_events TO "${apiRole()}"`);
      }
      const res = await read().expect(200);
      expect(await rowsOf(auditOwner, res.headers['x-request-id'])).toHaveLength(1);
      await http.get('/health/ready').expect(200);
    });

    it('undoes a webhook write whose audit row is refused: 503 AUDIT_UNAVAILABLE, no endpoint made, no secret rotated (the row is written before the write commits)', async () => {
      const manager = await tokenFor(http, await createClient(db, company, { scopes: [...ALL, 'webhooks.manage'] }));
      const made = await http
        .post('/v1/webhook-endpoints')
        .set('Authorization', `Bearer ${manager}`)
        .send({ url: 'https://93.184.216.34/hooks' })
        .expect(201);
      const secretOf = async () =>
        (await db.query('SELECT secret FROM webhook_endpoints WHERE public_id = $1', [made.body.data.id]))[0].secret as string;
      const sealed = await secretOf();
      const count = async () =>
        (await db.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_id = $1', [company.id]))[0].n;
      const endpoints = await count();
      await auditOwner.query(`REVOKE INSERT ON audit_events FROM "${apiRole()}"`);
      try {
        const create = await http
          .post('/v1/webhook-endpoints')
          .set('Authorization', `Bearer ${manager}`)
          .send({ url: 'https://93.184.216.34/other' });
        expectError(create, 503, 'AUDIT_UNAVAILABLE');
        expect(JSON.stringify(create.body)).not.toContain('whsec_');
        const rotate = await http
          .post(`/v1/webhook-endpoints/${made.body.data.id}/rotate-secret`)
          .set('Authorization', `Bearer ${manager}`);
        expectError(rotate, 503, 'AUDIT_UNAVAILABLE');
      } finally {
        await auditOwner.query(`GRANT INSERT ON audit_events TO "${apiRole()}"`);
      }
      expect(await count()).toBe(endpoints);
      expect(await secretOf()).toBe(sealed);
      // And once the trail takes rows again, the rotation is made (and recorded).
      const rotated = await http
        .post(`/v1/webhook-endpoints/${made.body.data.id}/rotate-secret`)
        .set('Authorization', `Bearer ${manager}`)
        .expect(200);
      expect(await rowsOf(auditOwner, rotated.headers['x-request-id'])).toHaveLength(1);
      expect(await secretOf()).not.toBe(sealed);
    });

    it('answers 503 within AUDIT_TIMEOUT_MS when the insert is blocked by a lock, never hangs, and recovers', async () => {
      await auditOwner.query('BEGIN');
      await auditOwner.query('LOCK TABLE audit_events IN ACCESS EXCLUSIVE MODE');
      let elapsed = 0;
      try {
        const started = Date.now();
        const res = await read();
        elapsed = Date.now() - started;
        expectError(res, 503, 'AUDIT_UNAVAILABLE');
        expect(res.body.data).toBeUndefined();
      } finally {
        await auditOwner.query('ROLLBACK');
      }
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 50);
      expect(elapsed).toBeLessThan(TIMEOUT + 1000);
      await read().expect(200);
    });

    it('recovers from lost audit connections without a restart', async () => {
      await read().expect(200);
      const su = new Client({ connectionString: process.env.TEST_SUPER_DATABASE_URL });
      await su.connect();
      try {
        const { rows } = await su.query(
          `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
           WHERE application_name = 'conversation-read-api-audit' AND datname = 'conversations_audit_test'`,
        );
        expect(rows.length).toBeGreaterThan(0);
      } finally {
        await su.end();
      }
      await eventually(async () => (await read()).status === 200, 5000);
      const res = await read().expect(200);
      expect(await rowsOf(auditOwner, res.headers['x-request-id'])).toHaveLength(1);
    });
  });

  describe('with an unreachable audit database', () => {
    let app: NestExpressApplication;
    let http: ReturnType<typeof request>;

    beforeAll(async () => {
      const url = Object.assign(new URL(process.env.TEST_AUDIT_DATABASE_URL!), { port: String(await deadPort()) }).toString();
      app = await createTestApp({ env: { AUDIT_DATABASE_URL: url, AUDIT_TIMEOUT_MS: '500' } });
      http = request(app.getHttpServer());
    });
    afterAll(() => app.close());

    it('answers every read 503 AUDIT_UNAVAILABLE, still issues tokens, and is not ready', async () => {
      const token = await tokenFor(http, client);
      const res = await http.get(`/v1/calls/${call.publicId}`).set('Authorization', `Bearer ${token}`);
      expectError(res, 503, 'AUDIT_UNAVAILABLE');
      expect(res.body.data).toBeUndefined();
      const ready = await http.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.details.audit.status).toBe('down');
    });
  });
});
