import { spawn } from 'node:child_process';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { freePort } from '../../src/database/embedded-postgres';
import { refusedAddress } from '../../src/webhooks/webhook-destination';
import { WebhookDeliveries } from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookEndpoints } from '../../src/webhooks/webhook-endpoints.repository';
import { SigningKeys } from '../../src/webhooks/webhook-secrets';
import { OwnerPool } from '../../src/database/owner-pool';
import { Metrics } from '../../src/metrics/metrics';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { CHANGE_OBJECTS, ChangeObject } from '../../src/changes/change.vocabulary';
import { feedBinding } from '../../src/changes/changes.service';
import { readJournal } from '../support/sync-journal';
import { runCli } from '../support/cli';
import { ChangeEntry, FeedReader } from '../support/feed';
import { createClient } from '../support/credentials';
import { createTenant, Tenant } from '../support/tenant';
import {
  assertTestDatabase,
  createTestApp,
  eventually,
  ownerDataSource,
  sleep,
  TEST_CURSOR_SECRET,
  TEST_WEBHOOK_SECRET_KEY,
} from '../support/test-app';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { CursorCodec } from '../../src/common/cursors/cursor-codec';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { RuntimeSecrets } from '../../src/config/runtime-secrets';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { WebhookVerificationError, verifyWebhook } from '../../sdk/src/index';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';

const ALL: Scope[] = [...ALL_SCOPES];
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

/** A compressed retry schedule (1, 2 and 4 seconds, ±20%): three retries, then the delivery gives up. */
const SCHEDULE = [1, 2, 4];
const WORKER_ENV = {
  WORKER: '1',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','),
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_EXPIRE_SECONDS: '5',
};
/** Longer than a job's expiry and pg-boss's next look at it: a job sent twice by expiring would show by then. */
const QUIET_MS = 7000;
/** The admin's CLI beside it: the same cursor secret (to open an event's cursor). */
const CLI_ENV = { WEBHOOK_ALLOW_PRIVATE: '1', CURSOR_SECRET: TEST_CURSOR_SECRET };

interface Endpoint {
  endpoint_id: string;
  company_id: string;
  url: string;
  types: string[] | null;
  state: string;
  secret: string;
}

describe('webhooks: a worker in the API process', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  const receivers: WebhookReceiver[] = [];

  let admin: WebhooksService;
  let adminPool: OwnerPool;

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp({ env: WORKER_ENV });
    http = request(app.getHttpServer());
    // The admin service as the CLI builds it (the schema owner's connections), without its process.
    const api = assertTestDatabase(process.env.TEST_DATABASE_URL);
    const config = loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE: '1' });
    adminPool = new OwnerPool(
      new DatabaseUrls(api, assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), api),
      config,
      new Metrics(false),
    );
    admin = new WebhooksService(
      new WebhookEndpoints(adminPool),
      new WebhookDeliveries(adminPool),
      undefined as never, // the dispatcher: replays only, which these tests run through the CLI
      new CompaniesService(new CompaniesRepository(db)),
      new CursorCodec(TEST_CURSOR_SECRET),
      config,
      new SigningKeys(new RuntimeSecrets(TEST_CURSOR_SECRET, '', [], TEST_WEBHOOK_SECRET_KEY)),
    );
  });

  afterAll(async () => {
    await adminPool?.onApplicationShutdown();
    await Promise.all(receivers.map((r) => r.close()));
    await app?.close();
    await db?.destroy();
  });

  const tenant = (): Promise<Tenant> => createTenant(db, http, ALL);
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
    const out = await runCli({ ...CLI_ENV, ...env }, ...args, '--json');
    return { code: out.code, json: JSON.parse(out.stdout) };
  }

  /** Through the admin CLI, as an admin would (its output checked): the first test and the refusals. */
  async function addEndpointByCli(t: Tenant, url: string, ...extra: string[]): Promise<Endpoint> {
    const out = await cli({}, 'webhooks:add', '--company', t.company.publicId, '--url', url, ...extra);
    expect(out).toMatchObject({ code: 0 });
    return out.json as unknown as Endpoint;
  }

  /** Through the service the CLI runs, as the schema owner, in this process (a CLI process takes seconds to start). */
  const addEndpoint = (t: Tenant, url: string, types?: ChangeObject[]): Promise<Endpoint> =>
    admin.add({ company: t.company.publicId, url, types }) as Promise<Endpoint>;
  const deliveriesOf = (endpoint: Endpoint) => admin.deliveries(endpoint.endpoint_id, 50);
  const endpointsOf = (t: Tenant) => admin.list(t.company.publicId);

  /** A feed reader from the head of `t`'s feed: what happens from now on. */
  async function readerFromNow(t: Tenant): Promise<FeedReader> {
    const res = await http.get('/v1/changes?start=now').set('Authorization', `Bearer ${t.token}`).expect(200);
    const reader = new FeedReader(() => http, t.token);
    reader.cursor = res.body.pagination.next_cursor;
    return reader;
  }

  /** Reads the feed until `done` holds of everything read so far; returns it all. */
  async function readUntil(reader: FeedReader, done: (all: ChangeEntry[]) => boolean): Promise<ChangeEntry[]> {
    await eventually(async () => {
      await reader.poll();
      return done(reader.seen);
    }, 45_000);
    return reader.seen;
  }

  const deliveredIds = (rx: WebhookReceiver) => new Set(rx.received.map((r) => r.id));

  it('sends each change once, signed (verified by the standardwebhooks package), thin, with a cursor into the feed [waits]', async () => {
    const t = await tenant();
    const other = await tenant();
    const [rx, otherRx] = [await receiver(), await receiver()];
    const reader = await readerFromNow(t);
    const endpoint = await addEndpointByCli(t, rx.url);
    expect(endpoint).toEqual({
      endpoint_id: expect.stringMatching(/^whe_[0-9A-Za-z]{22}$/),
      company_id: t.company.publicId,
      url: rx.url,
      types: null,
      state: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    await addEndpoint(other, otherRx.url);

    const meeting = await t.people.recording('meeting', { owner: t.seller });
    const call = await t.people.recording('call', { owner: t.seller });
    await db.query(`UPDATE recordings SET title = 'Novo título' WHERE id = $1`, [meeting.id]);
    const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
    await t.conversations.chatMessage(chat, { sentAt: new Date() });
    await t.conversations.email({ mailbox: t.mailbox, sentAt: daysAgo(30) });
    await db.query('DELETE FROM recordings WHERE id = $1', [call.id]);
    const theirs = await other.people.recording('meeting', { owner: other.seller });

    const entries = await readUntil(reader, (all) => all.some((e) => e.object_id === call.publicId && e.action === 'deleted'));
    expect(new Set(entries.map((e) => e.object))).toEqual(new Set(['meeting', 'call', 'chat', 'chat_message', 'email', 'email_message']));
    await eventually(async () => entries.every((e) => deliveredIds(rx).has(e.id)), 45_000);
    await sleep(QUIET_MS); // nothing more, nothing twice, even past a job's expiry

    expect([...rx.counts()].sort()).toEqual(entries.map((e) => [e.id, 1] as [string, number]).sort());
    for (const r of rx.received) {
      expect(WebhookReceiver.verifies(endpoint.secret, r)).toBe(true);
      const entry = entries.find((e) => e.id === r.id)!;
      expect(r.event).toEqual({
        type: `${entry.object}.${entry.action}`,
        timestamp: entry.committed_at,
        data: {
          change_id: entry.id,
          object: entry.object,
          object_id: entry.object_id,
          parent_id: entry.parent_id,
          changed: entry.changed,
          cursor: expect.stringMatching(/^cur_/),
        },
      });
    }
    // An event's cursor resumes the feed just after its change.
    const third = entries[2];
    const resumed = await http
      .get(`/v1/changes?cursor=${rx.received.find((r) => r.id === third.id)!.event.data.cursor}`)
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    expect(resumed.body.data.map((e: ChangeEntry) => e.id)).toEqual(entries.slice(3).map((e) => e.id));
    // It holds the whole position, epoch included (a cursor without one would start at the first epoch).
    const sealed = new CursorCodec(TEST_CURSOR_SECRET).open(
      rx.received.find((r) => r.id === third.id)!.event.data.cursor,
      feedBinding(t.company.id, CHANGE_OBJECTS),
    );
    expect(sealed).toHaveLength(3);

    // Tenancy: the other company's endpoint got its own change only.
    await eventually(async () => otherRx.received.length > 0, 30_000);
    expect(otherRx.received.map((r) => r.event.data.object_id)).toEqual([theirs.publicId]);
    expect(rx.received.some((r) => r.event.data.object_id === theirs.publicId)).toBe(false);

    const deliveries = await cli({}, 'webhooks:deliveries', '--endpoint', endpoint.endpoint_id);
    expect(deliveries.code).toBe(0);
    const rows = deliveries.json.data as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(entries.length);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null, replay: false });
      expect(row.delivery_id).toMatch(/^whd_/);
      expect(row.last_latency_ms).toEqual(expect.any(Number));
    }
  });

  it('sends only the types an endpoint follows, with cursors bound to them [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url, ['call', 'meeting']);
    expect(endpoint.types).toEqual(['meeting', 'call']);
    await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
    const meeting = await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length > 0, 30_000);
    await sleep(1000);
    expect(rx.received.map((r) => r.event.data.object_id)).toEqual([meeting.publicId]);
    const cursor = rx.received[0].event.data.cursor;
    await http.get(`/v1/changes?types=meeting,call&cursor=${cursor}`).set('Authorization', `Bearer ${t.token}`).expect(200);
    const unbound = await http.get(`/v1/changes?cursor=${cursor}`).set('Authorization', `Bearer ${t.token}`);
    expect(unbound.status).toBe(400);
    expect(unbound.body.error.code).toBe('INVALID_CURSOR');
  });

  it('retries a failing receiver on the schedule, with backoff, until it answers [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    rx.answer = (r) => (r.attempt <= 3 ? { status: 500 } : { status: 204 });
    const endpoint = await addEndpoint(t, rx.url);
    const meeting = await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.some((r) => r.attempt === 4), 60_000);
    const attempts = rx.received.filter((r) => r.event.data.object_id === meeting.publicId);
    expect(attempts.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1); // the same webhook-id every time
    for (let i = 1; i < attempts.length; i++) {
      const gap = attempts[i].at - attempts[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i - 1] * 1000 * 0.8 - 50);
      expect(gap).toBeLessThan(SCHEDULE[i - 1] * 1000 * 1.2 + 1500);
    }
    await eventually(async () => (await deliveriesOf(endpoint))[0]?.status === 'delivered', 30_000);
    const [row] = (await cli({}, 'webhooks:deliveries', '--endpoint', endpoint.endpoint_id)).json.data as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ status: 'delivered', attempts: 4, last_status: 204 });
  });

  it('marks an endpoint failing when a delivery used up its retries (never dropped), and active again on a success [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    rx.answer = () => ({ status: 503 });
    const endpoint = await addEndpoint(t, rx.url);
    await t.people.recording('meeting', { owner: t.seller });
    const listed = async () => (await endpointsOf(t))[0];
    await eventually(async () => (await listed()).state === 'failing', 75_000);
    expect(rx.received.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
    // As the admin sees it.
    expect((await cli({}, 'webhooks:list', '--company', t.company.publicId)).json.data).toEqual([
      {
        endpoint_id: endpoint.endpoint_id,
        company_id: t.company.publicId,
        url: rx.url,
        types: null,
        state: 'failing',
        failing_since: expect.stringMatching(/Z$/),
      },
    ]);
    const failed = (await cli({}, 'webhooks:deliveries', '--endpoint', endpoint.endpoint_id, '--status', 'failed')).json.data;
    expect(failed).toEqual([expect.objectContaining({ status: 'failed', attempts: 4, last_status: 503, last_error: 'HTTP 503' })]);

    rx.answer = () => ({ status: 200 });
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => (await listed()).state === 'active', 45_000);
    expect((await listed()).failing_since).toBeNull();
  });

  it('replays exactly the changes after a cursor, or committed after a date-time [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    for (let i = 0; i < 5; i++) await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 5, 45_000);
    await sleep(500);
    const reader = new FeedReader(() => http, t.token);
    const feed = (await reader.poll()).filter((e) => rx.counts().has(e.id));
    expect(feed).toHaveLength(5);
    const second = rx.received.find((r) => r.id === feed[1].id)!;

    const replay = await cli({}, 'webhooks:replay', '--endpoint', endpoint.endpoint_id, '--from', second.event.data.cursor);
    expect(replay).toEqual({ code: 0, json: { endpoint_id: endpoint.endpoint_id, company_id: t.company.publicId, queued: 3 } });
    await eventually(async () => rx.received.length === 8, 45_000);
    await sleep(500);
    const again = rx.received.slice(5);
    expect(again.map((r) => r.id).sort()).toEqual(
      feed
        .slice(2)
        .map((e) => e.id)
        .sort(),
    );
    for (const r of again) expect(WebhookReceiver.verifies(endpoint.secret, r)).toBe(true);

    // By date-time: every change committed after the instant, read from the horizon mark at or
    // before it (other test files' transactions may hold the horizon back: at least these).
    await db.query('SELECT app_mark_change_horizon()');
    await sleep(20);
    const instant = new Date().toISOString();
    for (let i = 0; i < 2; i++) await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 10, 45_000);
    const later = (await reader.poll()).filter((e) => rx.counts().has(e.id));
    expect(later).toHaveLength(2);
    const replayed = await cli({}, 'webhooks:replay', '--endpoint', endpoint.endpoint_id, '--from', instant);
    expect(replayed.json.queued).toBeGreaterThanOrEqual(2);
    expect(replayed.json.queued).toBeLessThanOrEqual(7);
    await eventually(async () => rx.received.length === 10 + Number(replayed.json.queued), 45_000);
    expect(rx.received.slice(10).map((r) => r.id)).toEqual(expect.arrayContaining(later.map((e) => e.id)));
    const rows = await deliveriesOf(endpoint);
    expect(rows.filter((r) => r.replay)).toHaveLength(3 + Number(replayed.json.queued));

    const wrong = await cli({}, 'webhooks:replay', '--endpoint', endpoint.endpoint_id, '--from', 'cur_notacursor');
    expect(wrong).toMatchObject({ code: 1, json: { error: { code: 'INVALID_ARGUMENTS' } } });
  });

  it('replays from a date-time a change whose transaction began before it and committed after it [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    const writer = db.createQueryRunner();
    await writer.connect();
    let instant: string;
    try {
      await writer.startTransaction();
      await new RecordingsFactory(writer.manager, t.company.id).recording('meeting', { owner: t.seller });
      await db.query('SELECT app_mark_change_horizon()'); // the open transaction holds the horizon back
      await sleep(20);
      instant = new Date().toISOString();
      await sleep(20);
      await writer.commitTransaction(); // committed after the instant, begun before it
    } finally {
      await writer.release();
    }
    await eventually(async () => rx.received.length === 1, 45_000);
    const [change] = rx.received;
    const [{ committed_at }] = await db.query('SELECT committed_at FROM change_log WHERE public_id = $1', [change.id]);
    expect(committed_at.getTime()).toBeLessThan(Date.parse(instant));
    const replayed = await cli({}, 'webhooks:replay', '--endpoint', endpoint.endpoint_id, '--from', instant);
    expect(replayed.json.queued).toBe(1);
    await eventually(async () => rx.received.length === 2, 45_000);
    expect(rx.received[1].id).toBe(change.id);
  });

  it('signs with both secrets during a rotation, then with the new one only [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    const rotated = await cli({}, 'webhooks:rotate-secret', '--endpoint', endpoint.endpoint_id);
    await t.people.recording('meeting', { owner: t.seller });
    expect(rotated.json).toEqual({
      endpoint_id: endpoint.endpoint_id,
      company_id: t.company.publicId,
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: expect.stringMatching(/Z$/),
    });
    const overlap = Date.parse(rotated.json.previous_secret_expires_at as string) - Date.now();
    expect(overlap).toBeGreaterThan(23 * 3600_000); // WEBHOOK_SECRET_OVERLAP's default, 24 h
    const secret = rotated.json.secret as string;
    await eventually(async () => rx.received.length === 1, 30_000);
    const during = rx.received[0];
    expect(during.signature.split(' ')).toHaveLength(2);
    expect(WebhookReceiver.verifies(endpoint.secret, during)).toBe(true);
    expect(WebhookReceiver.verifies(secret, during)).toBe(true);
    // The SDK's verifyWebhook on the real delivery: either secret, or both as a receiver holds them during a rotation.
    const headersOf = (r: Received) => ({ 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
    expect(verifyWebhook(headersOf(during), during.body, endpoint.secret)).toEqual(during.event);
    expect(verifyWebhook(new Headers(headersOf(during)), Buffer.from(during.body), [secret, endpoint.secret])).toEqual(during.event);
    expect(() => verifyWebhook(headersOf(during), during.body.replace('}', ' }'), [secret, endpoint.secret])).toThrow(
      WebhookVerificationError,
    );
    const twice = await cli({}, 'webhooks:rotate-secret', '--endpoint', endpoint.endpoint_id);
    expect(twice).toMatchObject({ code: 1, json: { error: { code: 'ROTATION_IN_PROGRESS' } } });

    // The overlap ended (early, as after a leak): the new secret only.
    const ended = await cli({}, 'webhooks:expire-previous-secret', '--endpoint', endpoint.endpoint_id);
    expect(ended.json).toEqual({ endpoint_id: endpoint.endpoint_id, company_id: t.company.publicId, expired: true });
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 2, 30_000);
    const afterwards = rx.received[1];
    expect(afterwards.signature.split(' ')).toHaveLength(1);
    expect(WebhookReceiver.verifies(secret, afterwards)).toBe(true);
    expect(WebhookReceiver.verifies(endpoint.secret, afterwards)).toBe(false);
    expect(() => verifyWebhook(headersOf(afterwards), afterwards.body, endpoint.secret)).toThrow(WebhookVerificationError);
    expect(verifyWebhook(headersOf(afterwards), afterwards.body, [endpoint.secret, secret]).data).toEqual(afterwards.event.data);
    const again = await cli({}, 'webhooks:expire-previous-secret', '--endpoint', endpoint.endpoint_id);
    expect(again.json).toMatchObject({ expired: false });
  });

  it('examples/webhook-receiver.mjs verifies events and keeps a copy through the feed [waits]', async () => {
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const t = await tenant();
    const client = await createClient(db, t.company, { scopes: ALL });
    const state = join(process.env.TEST_ROOT!, `receiver-copy-${process.pid}.json`);
    // The endpoint first (its secret is the receiver's), on a port the example then listens on.
    const port = await freePort();
    const endpoint = await addEndpoint(t, `http://127.0.0.1:${port}/hooks`);
    const example = spawn(
      process.execPath,
      [join(__dirname, '../../examples/webhook-receiver.mjs'), '--port', String(port), '--state', state],
      {
        env: {
          PATH: process.env.PATH,
          WEBHOOK_SECRET: endpoint.secret,
          BASE_URL: base,
          CLIENT_ID: client.clientId,
          CLIENT_SECRET: client.clientSecret,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    example.stdout!.on('data', (d) => (output += d));
    example.stderr!.on('data', (d) => (output += d));
    try {
      await eventually(async () => output.includes('"listening"'), 30_000);
      const meeting = await t.people.recording('meeting', { owner: t.seller });
      const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
      const copied = async () => (await readJournal(state).catch(() => ({ objects: {} }))).objects;
      await eventually(async () => {
        const objects = await copied();
        return `meeting:${meeting.publicId}` in objects && `chat:${chat.publicId}` in objects;
      }, 60_000);
      // Events verified by the example (no refusal), each one logged (the journal takes the copy's
      // lines as they come, before the run that wrote them logs its event).
      await eventually(async () => output.includes(`"object_id":"${meeting.publicId}"`), 30_000).catch(() => undefined);
      expect(output).not.toContain('refused');
      expect(output).toContain(`"object_id":"${meeting.publicId}"`);
    } finally {
      example.kill('SIGTERM');
    }
  });

  describe('refused destinations', () => {
    const strict = { WEBHOOK_ALLOW_PRIVATE: '0' };

    it.each([
      ['http://127.0.0.1:9/hooks', 'https only'],
      ['https://169.254.169.254/latest/meta-data', 'link-local (the cloud metadata address)'],
      ['https://10.1.2.3/hooks', 'private'],
      ['https://[::1]/hooks', 'IPv6 loopback'],
    ])('webhooks:add refuses %s (%s; every other form: the transport unit spec)', async (url) => {
      const t = await tenant();
      const out = await cli(strict, 'webhooks:add', '--company', t.company.publicId, '--url', url);
      expect(out).toMatchObject({ code: 1, json: { error: { code: 'WEBHOOK_URL_REFUSED' } } });
      expect(await endpointsOf(t)).toEqual([]);
    });

    /** This machine's own name, when it resolves to non-public addresses only (it does on these machines: /etc/hosts). */
    async function privateName(): Promise<string | null> {
      const name = hostname();
      const addresses = await lookup(name, { all: true }).catch(() => []);
      if (addresses.length && addresses.every((a) => refusedAddress(a.address))) return name;
      console.warn(
        `SKIPPED: ${name} does not resolve to private addresses only here (${JSON.stringify(addresses)}); the transport's medium spec covers this with a fake resolver`,
      );
      return null;
    }

    it('webhooks:add refuses a name that resolves to a private address', async () => {
      const name = await privateName();
      if (!name) return;
      const t = await tenant();
      const out = await cli(strict, 'webhooks:add', '--company', t.company.publicId, '--url', `https://${name}/hooks`);
      expect(out).toMatchObject({
        code: 1,
        json: { error: { code: 'WEBHOOK_URL_REFUSED', message: expect.stringContaining('resolves to') } },
      });
    });

    it('the worker checks the address after resolving the name, before connecting: a name that resolves to loopback is never called [waits]', async () => {
      const name = await privateName();
      if (!name) return;
      await app.close(); // one worker only: a strict one
      const strictApp = await createTestApp({ env: { ...WORKER_ENV, WEBHOOK_ALLOW_PRIVATE: '0' } });
      try {
        const t = await createTenant(db, request(strictApp.getHttpServer()), ALL);
        const rx = await receiver();
        // Registered while private destinations were allowed (as if the name pointed elsewhere then).
        const endpoint = await addEndpointByCli(t, `https://${name}:${new URL(rx.url).port}/hooks`);
        await t.people.recording('meeting', { owner: t.seller });
        let row: Record<string, unknown> | undefined;
        await eventually(async () => {
          [row] = (await deliveriesOf(endpoint)) as unknown as Array<Record<string, unknown>>;
          return typeof row?.last_error === 'string';
        }, 30_000);
        expect(row).toMatchObject({ last_status: null });
        expect(row!.attempts).toBeGreaterThanOrEqual(1); // and retried on the schedule meanwhile, refused each time
        expect(row!.last_error).toMatch(/^refused destination: .*127\.0\.0\.1/);
        expect(rx.received).toEqual([]);
      } finally {
        await strictApp.close();
        app = await createTestApp({ env: WORKER_ENV });
        http = request(app.getHttpServer());
      }
    });

    it('a redirect is not followed, and counts as a failure [waits]', async () => {
      const t = await tenant();
      const [rx, target] = [await receiver(), await receiver()];
      rx.answer = () => ({ status: 302, location: target.url });
      const endpoint = await addEndpoint(t, rx.url);
      await t.people.recording('meeting', { owner: t.seller });
      await eventually(async () => rx.received.length >= 2, 30_000);
      expect(target.received).toEqual([]);
      const [row] = await deliveriesOf(endpoint);
      expect(row).toMatchObject({ last_status: 302, last_error: expect.stringContaining('redirect') });
      expect(['pending', 'failed']).toContain(row.status); // retried on the schedule, or given up by now
    });
  });

  it('removing an endpoint stops its deliveries, retries included; unknown ids are refused [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    rx.answer = () => ({ status: 500 }); // every attempt fails: a retry is due after about a second
    const endpoint = await addEndpoint(t, rx.url);
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length >= 1, 30_000);
    const removed = await cli({}, 'webhooks:remove', '--endpoint', endpoint.endpoint_id);
    expect(removed.json).toEqual({ endpoint_id: endpoint.endpoint_id, company_id: t.company.publicId, removed: true });
    const sent = rx.received.length;
    await t.people.recording('meeting', { owner: t.seller });
    await sleep(4000); // past the retries that were due
    expect(rx.received).toHaveLength(sent);
    for (const command of ['webhooks:remove', 'webhooks:deliveries', 'webhooks:rotate-secret']) {
      const out = await cli({}, command, '--endpoint', endpoint.endpoint_id);
      expect(out).toMatchObject({ code: 1, json: { error: { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' } } });
    }
    const noTypes = await cli({}, 'webhooks:add', '--company', t.company.publicId, '--url', rx.url, '--types', 'meeting,recording');
    expect(noTypes).toMatchObject({ code: 1, json: { error: { code: 'INVALID_ARGUMENTS' } } });
  });

  it('keeps delivery records for WEBHOOK_RETENTION_DAYS, then deletes them [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    await t.people.recording('meeting', { owner: t.seller });
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 2, 30_000);
    await sleep(300);
    await db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '31 days'
       WHERE id = (SELECT min(d.id) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.public_id = $1)`,
      [endpoint.endpoint_id],
    );
    expect(await app.get(WebhookDeliveries).purge(30)).toBeGreaterThanOrEqual(1);
    expect(await deliveriesOf(endpoint)).toHaveLength(1);
  });
});
