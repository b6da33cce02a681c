import { CHANGE_OBJECTS } from '../../src/changes/change.vocabulary';
import { feedBinding } from '../../src/changes/changes.service';
import { ChangeEntry, FeedReader } from '../support/feed';
import { Tenant } from '../support/tenant';
import { eventually, sleep, TEST_CURSOR_SECRET } from '../support/test-app';
import { CursorCodec } from '../../src/common/cursors/cursor-codec';
import { WebhookReceiver } from '../support/webhook-receiver';
import { SCHEDULE, webhooksInProcess } from '../support/webhooks-in-process';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

/** Longer than a job's expiry and pg-boss's next look at it: a job sent twice by expiring would show by then. */
const QUIET_MS = 7000;

describe('webhooks: a worker in the API process', () => {
  const w = webhooksInProcess();
  const { tenant, receiver, cli, addEndpointByCli, addEndpoint, deliveriesOf, endpointsOf } = w;

  /** A feed reader from the head of `t`'s feed: what happens from now on. */
  async function readerFromNow(t: Tenant): Promise<FeedReader> {
    const res = await w.http.get('/v1/changes?start=now').set('Authorization', `Bearer ${t.token}`).expect(200);
    const reader = new FeedReader(() => w.http, t.token);
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
    await w.db.query(`UPDATE recordings SET title = 'Novo título' WHERE id = $1`, [meeting.id]);
    const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
    await t.conversations.chatMessage(chat, { sentAt: new Date() });
    await t.conversations.email({ mailbox: t.mailbox, sentAt: daysAgo(30) });
    await w.db.query('DELETE FROM recordings WHERE id = $1', [call.id]);
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
    const resumed = await w.http
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
    await w.http.get(`/v1/changes?types=meeting,call&cursor=${cursor}`).set('Authorization', `Bearer ${t.token}`).expect(200);
    const unbound = await w.http.get(`/v1/changes?cursor=${cursor}`).set('Authorization', `Bearer ${t.token}`);
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
    const reader = new FeedReader(() => w.http, t.token);
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
    await w.db.query('SELECT app_mark_change_horizon()');
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
    const writer = w.db.createQueryRunner();
    await writer.connect();
    let instant: string;
    try {
      await writer.startTransaction();
      await new RecordingsFactory(writer.manager, t.company.id).recording('meeting', { owner: t.seller });
      await w.db.query('SELECT app_mark_change_horizon()'); // the open transaction holds the horizon back
      await sleep(20);
      instant = new Date().toISOString();
      await sleep(20);
      await writer.commitTransaction(); // committed after the instant, begun before it
    } finally {
      await writer.release();
    }
    await eventually(async () => rx.received.length === 1, 45_000);
    const [change] = rx.received;
    const [{ committed_at }] = await w.db.query('SELECT committed_at FROM change_log WHERE public_id = $1', [change.id]);
    expect(committed_at.getTime()).toBeLessThan(Date.parse(instant));
    const replayed = await cli({}, 'webhooks:replay', '--endpoint', endpoint.endpoint_id, '--from', instant);
    expect(replayed.json.queued).toBe(1);
    await eventually(async () => rx.received.length === 2, 45_000);
    expect(rx.received[1].id).toBe(change.id);
  });
});
