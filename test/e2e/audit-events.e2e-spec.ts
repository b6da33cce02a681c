import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import request from 'supertest';
import { PoolGate } from '../../src/database/pool-gate';
import { DataSource } from 'typeorm';
import { monthStart, partitionName } from '../../src/audit/audit-schema';
import { Company } from '../../src/companies/company.entity';
import { DATA_SCOPES } from '../../src/contract/scopes';
import { readRolePosture } from '../../src/database/database-role-check';
import { RecordingsFactory, Ref } from '../../src/seeding/recordings.factory';
import { createClient, requestToken, TestClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { apiDataSource, createTestApp, eventually, lockWaiters, ownerDataSource } from '../support/test-app';

/** An event as the route answers it. */
interface Event {
  id: string;
  object: string;
  occurred_at: string;
  request_id: string;
  client: { id: string; name: string | null } | null;
  address: string | null;
  method: string;
  route: string | null;
  path_params: Record<string, string>;
  query: Record<string, unknown>;
  status: number;
  resource_ids: string[];
  truncated: boolean;
  attempts: number;
}

type Http = ReturnType<typeof request>;

/** Every event the auditor's token can page through with `query`, following cursors. */
async function allEvents(http: Http, token: string, query: Record<string, string> = {}, limit = 100): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = null;
  do {
    const res = await http
      .get('/v1/audit-events')
      .auth(token, { type: 'bearer' })
      .query({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    events.push(...(res.body.data as Event[]));
    cursor = res.body.pagination.next_cursor;
  } while (cursor);
  return events;
}

/** A tenant of the test: a company with a meeting and a call, a reading client and an auditor. */
interface Tenant {
  company: Company;
  meeting: Ref;
  call: Ref;
  reader: TestClient;
  auditor: TestClient;
}

async function tenant(db: DataSource, name: string): Promise<Tenant> {
  const company = await createCompany(db, { name });
  const people = new RecordingsFactory(db, company.id);
  const owner = await people.user();
  const meeting = await people.recording('meeting', { owner, transcript: 'enhanced' });
  const call = await people.recording('call', { owner, transcript: 'original' });
  const reader = await createClient(db, company, { scopes: [...DATA_SCOPES], name: `${name} reader` });
  const auditor = await createClient(db, company, { scopes: ['audit.read'], name: `${name} security` });
  return { company, meeting, call, reader, auditor };
}

/**
 * What each tenant's reader did, by request id: a detail read, a list page, a feed page and an
 * include batch that all name the meeting, a read of the call, a 404, a refused token request,
 * a token refused its scope (the auditor reading meetings) and a token issued.
 */
async function actFor(http: Http, t: Tenant): Promise<Record<string, string>> {
  const token = await tokenFor(http, t.reader);
  const auditorToken = await tokenFor(http, t.auditor);
  const get = async (path: string, bearer = token) =>
    (await http.get(path).auth(bearer, { type: 'bearer' })).headers['x-request-id'] as string;
  return {
    detail: await get(`/v1/meetings/${t.meeting.publicId}`),
    list: await get(`/v1/meetings?limit=100`),
    feed: await get(`/v1/changes?types=meeting&limit=100`),
    include: await get(`/v1/meetings?ids=${t.meeting.publicId}&include=transcript`),
    call: await get(`/v1/calls/${t.call.publicId}`),
    notFound: await get(`/v1/meetings/mtg_0000000000000000000000`),
    scopeRefused: await get(`/v1/meetings`, auditorToken),
    tokenRefused: (await requestToken(http, { clientId: t.reader.clientId, clientSecret: 'not-the-secret' })).headers[
      'x-request-id'
    ] as string,
    tokenIssued: (await requestToken(http, t.reader)).headers['x-request-id'] as string,
  };
}

describe('GET /v1/audit-events: a company reads its own trail', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;
  let a: Tenant;
  let b: Tenant;
  let actsA: Record<string, string>;
  let actsB: Record<string, string>;
  let auditA: string;
  let auditB: string;

  /** Waits until every request id of `acts` is in the trail (refused requests are written best effort, after their answer). */
  const written = (acts: Record<string, string>) =>
    eventually(async () => {
      const ids: Array<{ request_id: string }> = await db.query('SELECT request_id FROM audit_events WHERE request_id = ANY($1)', [
        Object.values(acts),
      ]);
      return ids.length === Object.values(acts).length;
    }, 20_000);

  beforeAll(async () => {
    db = await ownerDataSource();
    [a, b] = [await tenant(db, 'Acme'), await tenant(db, 'Globex')];
    app = await createTestApp();
    http = request(app.getHttpServer());
    actsA = await actFor(http, a);
    actsB = await actFor(http, b);
    await written(actsA);
    await written(actsB);
    [auditA, auditB] = [await tokenFor(http, a.auditor), await tokenFor(http, b.auditor)];
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
  });

  it('answers each company its own events only, refused requests and token requests included, newest first', async () => {
    const [seenA, seenB] = [await allEvents(http, auditA), await allEvents(http, auditB)];
    const idsA = new Set(seenA.map((e) => e.request_id));
    const idsB = new Set(seenB.map((e) => e.request_id));
    for (const id of Object.values(actsA)) expect(idsA.has(id)).toBe(true);
    for (const id of Object.values(actsB)) expect(idsB.has(id)).toBe(true);
    for (const id of Object.values(actsB)) expect(idsA.has(id)).toBe(false);
    for (const id of Object.values(actsA)) expect(idsB.has(id)).toBe(false);
    // Every event names one of the company's own clients, or none.
    const clientsA = new Set([a.reader.clientId, a.auditor.clientId]);
    for (const e of seenA) expect(e.client === null || clientsA.has(e.client.id)).toBe(true);
    // Newest first, ids distinct.
    const times = seenA.map((e) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(seenA.map((e) => e.id)).size).toBe(seenA.length);
    // And the database agrees on what A's trail holds.
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM audit_events WHERE company = $1 AND request_id = ANY($2)', [
      a.company.publicId,
      seenA.map((e) => e.request_id),
    ]);
    expect(n).toBe(seenA.length);
  });

  it('shows each event whole: client with its name, route template, path parameters, query, status, resource ids', async () => {
    const events = await allEvents(http, auditA);
    const detail = events.find((e) => e.request_id === actsA.detail)!;
    expect(detail).toEqual({
      id: expect.stringMatching(/^aev_[0-9A-Za-z]{22}$/),
      object: 'audit_event',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      request_id: actsA.detail,
      client: { id: a.reader.clientId, name: 'Acme reader' },
      address: expect.any(String),
      method: 'GET',
      route: 'GET /v1/meetings/{meeting_id}',
      path_params: { meeting_id: a.meeting.publicId },
      query: {},
      status: 200,
      resource_ids: [a.meeting.publicId],
      truncated: false,
      attempts: 1,
    });
    const refused = events.find((e) => e.request_id === actsA.tokenRefused)!;
    expect(refused).toMatchObject({ method: 'POST', route: 'POST /oauth/token', status: 401, resource_ids: [] });
    expect(events.find((e) => e.request_id === actsA.scopeRefused)).toMatchObject({
      status: 403,
      client: { id: a.auditor.clientId, name: 'Acme security' },
    });
    expect(events.find((e) => e.request_id === actsA.list)!.query).toEqual({ limit: '100' });
    // The same event has the same id on every read.
    const again = await allEvents(http, auditA);
    expect(again.find((e) => e.request_id === actsA.detail)!.id).toBe(detail.id);
  });

  it('finds by resource_id exactly the requests whose answers named the record: detail, list page, feed page, include batch', async () => {
    const found = await allEvents(http, auditA, { resource_id: a.meeting.publicId });
    const mine = found.map((e) => e.request_id).filter((id) => Object.values(actsA).includes(id));
    expect(mine.sort()).toEqual([actsA.detail, actsA.list, actsA.feed, actsA.include].sort());
    for (const e of found) expect(e.resource_ids).toContain(a.meeting.publicId);
    // The other company's record is not found in this company's trail, though it was read.
    expect(await allEvents(http, auditA, { resource_id: b.meeting.publicId })).toEqual([]);
    const call = await allEvents(http, auditA, { resource_id: a.call.publicId });
    expect(call.map((e) => e.request_id)).toContain(actsA.call);
    expect(call.map((e) => e.request_id)).not.toContain(actsA.detail);
  });

  it('applies every filter and combination exactly as the unfiltered trail says', async () => {
    const everything = await allEvents(http, auditA);
    const middle = everything[Math.floor(everything.length / 2)].occurred_at;
    const oldest = everything[everything.length - 1].occurred_at;
    const cases: Array<[Record<string, string>, (e: Event) => boolean]> = [
      [{ client_id: a.reader.clientId }, (e) => e.client?.id === a.reader.clientId],
      [{ client_id: a.auditor.clientId }, (e) => e.client?.id === a.auditor.clientId],
      [{ route: 'GET /v1/meetings' }, (e) => e.route === 'GET /v1/meetings'],
      [{ route: 'POST /oauth/token' }, (e) => e.route === 'POST /oauth/token'],
      [{ status: '404' }, (e) => e.status === 404],
      [{ status: '4xx' }, (e) => e.status >= 400 && e.status < 500],
      [{ status: '2xx' }, (e) => e.status >= 200 && e.status < 300],
      [{ occurred_after: middle }, (e) => e.occurred_at > middle],
      [{ occurred_before: middle }, (e) => e.occurred_at < middle],
      [{ occurred_after: oldest, occurred_before: middle }, (e) => e.occurred_at > oldest && e.occurred_at < middle],
      [
        { client_id: a.reader.clientId, route: 'GET /v1/meetings', status: '2xx' },
        (e) => e.client?.id === a.reader.clientId && e.route === 'GET /v1/meetings' && e.status === 200,
      ],
      [
        { resource_id: a.meeting.publicId, route: 'GET /v1/meetings/{meeting_id}' },
        (e) => e.resource_ids.includes(a.meeting.publicId) && e.route === 'GET /v1/meetings/{meeting_id}',
      ],
      [
        { resource_id: a.meeting.publicId, client_id: a.reader.clientId, status: '200', occurred_before: middle },
        (e) =>
          e.resource_ids.includes(a.meeting.publicId) && e.client?.id === a.reader.clientId && e.status === 200 && e.occurred_at < middle,
      ],
      [{ resource_id: a.meeting.publicId, status: '404' }, () => false],
    ];
    for (const [query, keep] of cases) {
      // Events written since `everything` was read (this test's own reads) are newer than it: left out of the comparison.
      const known = new Set(everything.map((e) => e.id));
      const got = (await allEvents(http, auditA, query, 3)).filter((e) => known.has(e.id)).map((e) => e.id);
      expect({ query, ids: got }).toEqual({ query, ids: everything.filter(keep).map((e) => e.id) });
    }
  });

  it('pages stably while new events arrive: no event twice, none skipped, the new ones are newer than the first page', async () => {
    const before = await allEvents(http, auditA);
    const seen: Event[] = [];
    let cursor: string | null = null;
    let first = true;
    do {
      const res = await http
        .get('/v1/audit-events')
        .auth(auditA, { type: 'bearer' })
        .query({ limit: '2', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.pagination.next_cursor;
      // New rows for the company between pages (this read itself is one).
      await http.get(`/v1/meetings/${a.meeting.publicId}`).auth(await tokenFor(http, a.reader), { type: 'bearer' });
      if (first) first = false;
    } while (cursor);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Everything that existed before paging began is seen, in the same order.
    const known = new Set(ids);
    expect(before.filter((e) => !known.has(e.id))).toEqual([]);
    const firstPageTime = seen[0].occurred_at;
    for (const e of seen.slice(2)) expect(e.occurred_at <= firstPageTime).toBe(true);
  });

  it('records reading the trail itself, and needs audit.read', async () => {
    const res = await http.get('/v1/audit-events?limit=1').auth(auditA, { type: 'bearer' });
    expect(res.status).toBe(200);
    const readId = res.headers['x-request-id'] as string;
    await eventually(
      async () => (await allEvents(http, auditA, { route: 'GET /v1/audit-events' })).some((e) => e.request_id === readId),
      20_000,
    );
    const self = (await allEvents(http, auditA, { route: 'GET /v1/audit-events' })).find((e) => e.request_id === readId)!;
    expect(self.resource_ids).toEqual([res.body.data[0].id]);

    const reader = await tokenFor(http, a.reader);
    expectError(await http.get('/v1/audit-events').auth(reader, { type: 'bearer' }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('refuses bad filters with 400 INVALID_FILTER, and cursors of another company or other filters', async () => {
    const bad: Array<[Record<string, string>, string]> = [
      [{ client_id: 'cli_short' }, 'INVALID_FILTER'],
      [{ client_id: a.meeting.publicId }, 'INVALID_FILTER'],
      [{ route: 'GET /v1/nothing-here' }, 'INVALID_FILTER'],
      [{ route: '/v1/meetings' }, 'INVALID_FILTER'],
      [{ route: 'GET /v1/meetings/:meeting_id' }, 'INVALID_FILTER'],
      [{ route: 'client:nothing' }, 'INVALID_FILTER'],
      [{ status: '600' }, 'INVALID_FILTER'],
      [{ status: '4x' }, 'INVALID_FILTER'],
      [{ status: 'xx' }, 'INVALID_FILTER'],
      [{ status: '2000' }, 'INVALID_FILTER'],
      [{ resource_id: 'mtg_1' }, 'INVALID_FILTER'],
      [{ resource_id: 'zzz_0000000000000000000000' }, 'INVALID_FILTER'],
      [{ occurred_after: 'yesterday' }, 'INVALID_DATETIME'],
      [{ occurred_after: '2026-01-02T00:00:00Z', occurred_before: '2026-01-01T00:00:00Z' }, 'INVALID_FILTER'],
      [{ limit: '0' }, 'INVALID_LIMIT'],
      [{ format: 'csv' }, 'INVALID_REQUEST'],
    ];
    for (const [query, code] of bad) {
      const res = await http.get('/v1/audit-events').auth(auditA, { type: 'bearer' }).query(query);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({ query, status: 400, code });
    }
    // An admin command the trail records is a route too (its events: method CLI).
    expect(
      (await http.get('/v1/audit-events').auth(auditA, { type: 'bearer' }).query({ route: 'client:expire-previous-secret' })).status,
    ).toBe(200);
    const page = await http.get('/v1/audit-events?limit=1').auth(auditA, { type: 'bearer' });
    const cursor = page.body.pagination.next_cursor as string;
    expectError(await http.get('/v1/audit-events').auth(auditB, { type: 'bearer' }).query({ cursor }), 400, 'INVALID_CURSOR');
    expectError(
      await http.get('/v1/audit-events').auth(auditA, { type: 'bearer' }).query({ cursor, status: '200' }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('keeps the API role as narrow as before: no plain read of the trail or its index, a function bound to the transaction’s company', async () => {
    const api = await apiDataSource();
    try {
      expect((await readRolePosture(api)).excess).toEqual([]);
      for (const table of ['audit_events', 'audit_event_resources']) {
        const [{ select }] = await api.query(`SELECT has_table_privilege($1, 'SELECT') AS select`, [table]);
        expect({ table, select }).toEqual({ table, select: false });
        await expect(api.query(`SELECT * FROM ${table} LIMIT 1`)).rejects.toThrow(/permission denied/);
      }
      // Without a company named in the transaction, the function refuses.
      await expect(
        api.query('SELECT * FROM app_audit_events(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 10, NULL)'),
      ).rejects.toThrow(/app\.audit_company/);
      // Named, it answers that company's rows only.
      const rows: Array<{ request_id: string }> = await api.transaction(async (m) => {
        await m.query(`SELECT set_config('app.audit_company', $1, true)`, [b.company.publicId]);
        return m.query('SELECT request_id FROM app_audit_events(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000, NULL)');
      });
      expect(rows.map((r) => r.request_id)).toEqual(expect.arrayContaining(Object.values(actsB)));
      expect(rows.some((r) => Object.values(actsA).includes(r.request_id))).toBe(false);
      // The client names: only the tenant's own.
      const names = await api.transaction(async (m) => {
        await m.query(`SELECT set_config('app.company_id', $1, true)`, [b.company.id]);
        return m.query('SELECT client_id FROM app_company_clients($1)', [[a.reader.clientId, b.reader.clientId]]);
      });
      expect(names).toEqual([{ client_id: b.reader.clientId }]);
    } finally {
      await api.destroy();
    }
  });

  it('walks the months in UTC whatever the session’s time zone: a month’s last day and first instant are paged', async () => {
    const company = `cmp_${'7'.repeat(22)}`;
    const times = [
      '2026-05-31T23:30:00Z',
      '2026-05-01T00:00:00Z',
      '2026-04-30T23:59:59.999999Z',
      '2026-03-31T12:00:00Z',
      '2026-03-29T12:00:00Z',
    ];
    for (const [i, at] of times.entries()) {
      await db.query(
        `INSERT INTO audit_events (occurred_at, request_id, company, client, method, route, status, resource_ids)
         VALUES ($1, $2, $3, $4, 'GET', 'GET /v1/meetings', 200, $5)`,
        [at, `req_tz${i}`, company, `cli_${'7'.repeat(22)}`, JSON.stringify([`mtg_${'7'.repeat(22)}`])],
      );
    }
    const api = await apiDataSource();
    try {
      for (const zone of ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata']) {
        for (const filters of [
          [null, null],
          [`cli_${'7'.repeat(22)}`, null],
          [null, `mtg_${'7'.repeat(22)}`],
        ]) {
          const seen: string[] = await api.transaction(async (m) => {
            await m.query(`SET LOCAL timezone = '${zone}'`);
            await m.query(`SELECT set_config('app.audit_company', $1, true)`, [company]);
            const ids: string[] = [];
            let position: [string | null, string | null] = [null, null];
            for (;;) {
              const [row] = await m.query(
                `SELECT request_id, occurred_at::text AS at, id::text AS id FROM app_audit_events($1, NULL, NULL, NULL, $2, NULL, NULL, $3, $4, 1, NULL)`,
                [filters[0], filters[1], ...position],
              );
              if (!row) return ids;
              ids.push(row.request_id);
              position = [row.at, row.id];
            }
          });
          expect({ zone, filters, seen }).toEqual({ zone, filters, seen: times.map((_, i) => `req_tz${i}`) });
        }
      }
    } finally {
      await api.destroy();
    }
  });

  describe('with the trail in a separate database (AUDIT_DATABASE_URL)', () => {
    let separate: NestExpressApplication;
    let other: Http;

    beforeAll(async () => {
      separate = await createTestApp({ env: { AUDIT_DATABASE_URL: process.env.TEST_AUDIT_DATABASE_URL } });
      other = request(separate.getHttpServer());
    });
    afterAll(() => separate.close());

    it('answers the same way, from that database, for each company its own', async () => {
      const acts = await actFor(other, a);
      const actsOfB = await actFor(other, b);
      const [tokenA, tokenB] = [await tokenFor(other, a.auditor), await tokenFor(other, b.auditor)];
      await eventually(async () => {
        const ids = new Set((await allEvents(other, tokenA)).map((e) => e.request_id));
        return Object.values(acts).every((id) => ids.has(id));
      }, 20_000);
      const seenA = await allEvents(other, tokenA);
      const seenB = await allEvents(other, tokenB);
      expect(seenA.some((e) => Object.values(actsOfB).includes(e.request_id))).toBe(false);
      expect(seenB.some((e) => Object.values(acts).includes(e.request_id))).toBe(false);
      const byResource = await allEvents(other, tokenA, { resource_id: a.meeting.publicId });
      expect(byResource.map((e) => e.request_id).sort()).toEqual([acts.detail, acts.list, acts.feed, acts.include].sort());
      // Those rows are in the separate database, not the main one.
      const [{ n }] = await db.query('SELECT count(*)::int AS n FROM audit_events WHERE request_id = $1', [acts.detail]);
      expect(n).toBe(0);
      // There too the API role may append and read through the function only.
      const trail = new Client({ connectionString: process.env.TEST_AUDIT_DATABASE_URL });
      await trail.connect();
      try {
        const { rows } = await trail.query(
          `SELECT has_table_privilege('audit_events', 'SELECT') AS events, has_table_privilege('audit_event_resources', 'SELECT') AS resources`,
        );
        expect(rows[0]).toEqual({ events: false, resources: false });
      } finally {
        await trail.end();
      }
    });
  });
});

describe('GET /v1/audit-events: no company takes the reader from another', () => {
  const ROWS = 100_000;
  const SCAN_ROWS = 10_000; // the default AUDIT_SCAN_ROWS
  const HOT = `mtg_${'h'.repeat(22)}`;
  const RARE_ROUTE = 'GET /v1/calls/{call_id}';
  let db: DataSource;
  let app: NestExpressApplication;
  let http: Http;
  let c: Tenant;
  let d: Tenant;
  let auditC: string;
  let auditD: string;

  beforeAll(async () => {
    db = await ownerDataSource();
    [c, d] = [await tenant(db, 'Initech'), await tenant(db, 'Umbrella')];
    app = await createTestApp();
    http = request(app.getHttpServer());
    [auditC, auditD] = [await tokenFor(http, c.auditor), await tokenFor(http, d.auditor)];
    // C's trail: one record named by 100,000 requests of its reader, a few of them 503s, a few on a rare route.
    const started = Date.now();
    await db.query(
      `INSERT INTO audit_events (occurred_at, request_id, company, client, method, route, status, resource_ids)
       SELECT date_trunc('month', now()) + interval '2 days' - i * interval '1 millisecond', 'req_bulk' || i, $1, $2, 'GET',
         CASE WHEN i % 10007 = 0 THEN $4 ELSE 'GET /v1/meetings/{meeting_id}' END, CASE WHEN i % 9973 = 0 THEN 503 ELSE 200 END,
         jsonb_build_array($3::text)
       FROM generate_series(1, $5::int) i`,
      [c.company.publicId, c.reader.clientId, HOT, RARE_ROUTE, ROWS],
    );
    process.stdout.write(`audit trail of ${ROWS} rows inserted in ${Date.now() - started} ms\n`);
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await db.destroy();
  });

  it.each([
    ['resource_id and status', { resource_id: HOT, status: '5xx' }, 'status >= 500'],
    ['route', { route: RARE_ROUTE }, `route = '${RARE_ROUTE}'`],
    ['client_id and status', { client_id: 'READER', status: '503' }, 'status = 503'],
  ])(
    'examines at most AUDIT_SCAN_ROWS rows a page for a rare %s filter: short pages with has_more and a cursor, every match found once',
    async (_label, filters, where) => {
      const query = Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, v === 'READER' ? c.reader.clientId : v]));
      const expected: Array<{ request_id: string }> = await db.query(
        `SELECT request_id FROM audit_events WHERE company = $1 AND request_id LIKE 'req_bulk%' AND ${where} ORDER BY occurred_at DESC, id DESC`,
        [c.company.publicId],
      );
      expect(expected.length).toBeGreaterThan(5);
      const found: string[] = [];
      const times: number[] = [];
      let short = 0;
      let cursor: string | null = null;
      do {
        const started = Date.now();
        const res = await http
          .get('/v1/audit-events')
          .auth(auditC, { type: 'bearer' })
          .query({ ...query, limit: '100', ...(cursor ? { cursor } : {}) });
        times.push(Date.now() - started);
        expect(res.status).toBe(200);
        if (res.body.pagination.has_more && res.body.data.length < 100) short += 1;
        found.push(...(res.body.data as Event[]).map((e) => e.request_id).filter((id) => id.startsWith('req_bulk')));
        cursor = res.body.pagination.next_cursor;
      } while (cursor);
      expect(found).toEqual(expected.map((r) => r.request_id));
      // A page per AUDIT_SCAN_ROWS rows examined, each answered in a small part of the reader's 10 s timeout.
      expect(short).toBeGreaterThanOrEqual(ROWS / SCAN_ROWS - 1);
      expect(Math.max(...times)).toBeLessThan(2_000);
      process.stdout.write(`${_label}: ${times.length} pages, slowest ${Math.max(...times)} ms\n`);
    },
  );

  it('[waits] serves another company while one company’s reads hold its share (one) of the reader’s connections', async () => {
    // C's reads by resource are held deterministically: a partition of the resource index, one no
    // write goes to (a future month), locked by the owner; D's reads never touch that index.
    const locker = await ownerDataSource();
    const runner = locker.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const partition = partitionName(monthStart(new Date(), 3), 'audit_event_resources');
    await runner.query(`LOCK TABLE ${partition} IN ACCESS EXCLUSIVE MODE`);
    try {
      const held = Array.from({ length: 6 }, () =>
        http
          .get('/v1/audit-events')
          .auth(auditC, { type: 'bearer' })
          .query({ resource_id: HOT, limit: '5' })
          .then((res) => res.status),
      );
      // One of the reader's 4 connections is C's, waiting on the lock; C's other reads wait behind it.
      const lockWaits = () => lockWaiters(db, partition);
      await eventually(async () => (await lockWaits()) === 1, 10_000);
      // A filtered read is heavy work: C's holds the instance's one heavy turn (HEAVY_REQUESTS_MAX=1),
      // its others wait for it (once all five have come that far: on a busy machine some come later);
      // D's unfiltered page waits for no heavy turn.
      await eventually(async () => app.get(PoolGate).heavy.stats().waiting === 5, 10_000);
      expect(app.get(PoolGate).heavy.stats()).toMatchObject({ held: 1, waiting: 5 });
      const started = Date.now();
      const res = await http.get('/v1/audit-events').auth(auditD, { type: 'bearer' }).query({ limit: '5' }).timeout(5_000);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await lockWaits()).toBe(1);
      await runner.commitTransaction();
      expect(await Promise.all(held)).toEqual(Array(6).fill(200));
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
      await locker.destroy();
    }
  });
});
