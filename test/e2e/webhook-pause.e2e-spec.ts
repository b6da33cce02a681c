import { parseExposition } from '../../src/metrics/exposition';
import { Metrics, METRIC_PREFIX } from '../../src/metrics/metrics';
import { BackgroundRunner } from '../../src/worker/background-runner';
import { FeedReader } from '../support/feed';
import { eventually } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { webhooksInProcess } from '../support/webhooks-in-process';

/**
 * A paused endpoint (`enabled = false`, as `PATCH /v1/webhook-endpoints/{id}` sets it) with the
 * real worker in process (a 50 ms dispatcher poll, a 1-2-4 s retry schedule) and a real
 * receiver: what waits, what is still sent, and what arrives after the resume. The pause and the
 * resume are written here as the API's statements would (SQL as the schema owner).
 */
describe('webhooks: a paused endpoint', () => {
  const w = webhooksInProcess();
  const { tenant, receiver, addEndpoint } = w;

  /** The dispatcher's loop in the app under test: its finished passes. */
  const dispatcherPasses = () => w.app.get(BackgroundRunner).loops.find((loop) => loop.name === 'webhook-dispatch')!.stats.runs;

  /** Waits until the dispatcher has run `n` whole passes that started after this call (n + 1 finish: the first may have begun before). */
  async function passes(n: number): Promise<void> {
    const from = dispatcherPasses();
    await eventually(async () => dispatcherPasses() >= from + n + 1, 30_000);
  }

  async function gauge(name: string, labels: Record<string, string>): Promise<number> {
    const samples = parseExposition((await w.app.get(Metrics).scrape()).body);
    const found = samples.find((s) => s.name === `${METRIC_PREFIX}${name}` && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    return found?.value ?? NaN;
  }

  it('receives nothing while paused (feed unread, retries pending) but its test event, signed; resumed, everything, once [waits]', async () => {
    const started = Date.now();
    const t = await tenant();
    const rx = await receiver();
    rx.answer = () => ({ status: 500 }); // the first attempt fails: its retry waits about a second
    const head = await w.http.get('/v1/changes?start=now').set('Authorization', `Bearer ${t.token}`).expect(200);
    const reader = new FeedReader(() => w.http, t.token);
    reader.cursor = head.body.pagination.next_cursor;
    const endpoint = await addEndpoint(t, rx.url);
    const [{ id }] = await w.db.query('SELECT id::text AS id FROM webhook_endpoints WHERE public_id = $1', [endpoint.endpoint_id]);
    const endpointRow = async () =>
      (
        await w.db.query(
          `SELECT enabled, position_epoch::text AS epoch, position_xid::text AS xid, position_seq::text AS seq
           FROM webhook_endpoints WHERE id = $1`,
          [id],
        )
      )[0];
    const deliveryRows = (): Promise<Array<Record<string, unknown>>> =>
      w.db.query(
        `SELECT change_id, event_type, status, attempts, job_id, next_attempt_at <= now() AS due
         FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id`,
        [id],
      );

    // A change sent once and failed; then the pause, the API's statement.
    const first = await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length >= 1, 30_000);
    await w.db.query('UPDATE webhook_endpoints SET enabled = false WHERE id = $1', [id]);
    // The batch queued before the pause settles as usual: its failure is a retry, pending and not held.
    await eventually(async () => {
      const rows = await deliveryRows();
      return rows.length === 1 && rows[0].status === 'pending' && rows[0].job_id === null;
    }, 30_000);
    const sentBeforePause = rx.received.length;
    const [firstChange] = await deliveryRows();
    const pausedAt = await endpointRow();
    rx.answer = () => ({ status: 200 });

    // Committed while paused: two more changes. The retry comes due, and the dispatcher runs on.
    const meeting = await t.people.recording('meeting', { owner: t.seller });
    const call = await t.people.recording('call', { owner: t.seller });
    await eventually(async () => (await deliveryRows())[0].due === true, 30_000);
    await passes(3);
    expect(rx.received).toHaveLength(sentBeforePause);
    // The retry waits, due, untaken, its attempts unspent; the feed was not read: no new delivery, the position where it was.
    expect(await deliveryRows()).toEqual([
      {
        change_id: firstChange.change_id,
        event_type: 'meeting.created',
        status: 'pending',
        attempts: firstChange.attempts,
        job_id: null,
        due: true,
      },
    ]);
    expect(await endpointRow()).toEqual(pausedAt);
    // The worker's gauges show the waiting work (other tests' endpoints may be counted too: at least).
    expect(await gauge('webhook_endpoints', { state: 'disabled' })).toBeGreaterThanOrEqual(1);
    expect(await gauge('webhook_deliveries_waiting', { reason: 'paused' })).toBeGreaterThanOrEqual(1);

    // A test event (as POST …/test records it) is sent to the paused endpoint, signed; nothing else is.
    const testEvent = { type: 'webhook.test', timestamp: new Date().toISOString(), data: { endpoint_id: endpoint.endpoint_id } };
    await w.db.query(
      `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, next_attempt_at)
       VALUES ($1, 'evt_test1', 'webhook.test', now(), $2, now())`,
      [id, JSON.stringify(testEvent)],
    );
    await eventually(async () => rx.received.some((r) => r.id === 'evt_test1'), 30_000);
    await eventually(async () => (await deliveryRows()).some((d) => d.change_id === 'evt_test1' && d.status === 'delivered'), 30_000);
    await passes(2);
    expect(rx.received.slice(sentBeforePause).map((r) => r.id)).toEqual(['evt_test1']);
    const test = rx.received[sentBeforePause];
    expect(WebhookReceiver.verifies(endpoint.secret, test)).toBe(true);
    expect(test.event).toEqual(testEvent);
    expect((await deliveryRows()).filter((d) => d.change_id !== 'evt_test1')).toHaveLength(1);
    expect(await endpointRow()).toEqual(pausedAt);

    // Resumed as the API does it: enabled, active, and what waits for later due now.
    await w.db.transaction(async (m) => {
      await m.query(`UPDATE webhook_endpoints SET enabled = true, state = 'active', failing_since = NULL WHERE id = $1`, [id]);
      await m.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > now()`,
        [id],
      );
    });
    // Everything the feed holds since the endpoint was added arrives; nothing is lost, nothing answered 2xx twice.
    await eventually(async () => {
      await reader.poll();
      return [first, meeting, call].every((r) => reader.seen.some((e) => e.object_id === r.publicId));
    }, 30_000);
    const entries = reader.seen.map((e) => e.id);
    const delivered = () => rx.received.filter((r) => r.answered === 200).map((r) => r.id);
    await eventually(async () => entries.every((e) => delivered().includes(e)), 30_000);
    await eventually(async () => (await deliveryRows()).every((d) => d.status === 'delivered'), 30_000);
    await passes(3);
    expect(delivered().sort()).toEqual([...entries, 'evt_test1'].sort());
    expect(new Set(rx.received.map((r) => r.id))).toEqual(new Set([...entries, 'evt_test1']));
    for (const r of rx.received) expect(WebhookReceiver.verifies(endpoint.secret, r)).toBe(true);
    expect(await endpointRow()).toMatchObject({ enabled: true });
    console.log(`webhook-pause: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('a batch queued before its endpoint was re-pointed stops there: what its run had not started goes to the new URL, nothing lost [waits]', async () => {
    const started = Date.now();
    const t = await tenant();
    const before = await receiver();
    const after = await receiver();
    // Each answer takes a second and a half: the batch's run sends WEBHOOK_CONCURRENCY (16) at a time.
    before.answer = () => ({ status: 200, delayMs: 1500 });
    const endpoint = await addEndpoint(t, before.url);
    const [{ id }] = await w.db.query('SELECT id::text AS id FROM webhook_endpoints WHERE public_id = $1', [endpoint.endpoint_id]);
    // Forty changes in one batch: written while paused, then resumed (the dispatcher takes them together).
    await w.db.query('UPDATE webhook_endpoints SET enabled = false WHERE id = $1', [id]);
    const made = [];
    for (let i = 0; i < 40; i++) made.push(await t.people.recording('meeting', { owner: t.seller }));
    await w.db.query('UPDATE webhook_endpoints SET enabled = true WHERE id = $1', [id]);
    await eventually(async () => before.received.length > 0, 30_000);
    await w.db.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [id, after.url]);
    const ids = (rx: WebhookReceiver) => new Set(rx.received.map((r) => r.id));
    await eventually(async () => ids(before).size + ids(after).size >= 40, 60_000);
    expect(ids(before).size).toBeLessThan(40);
    expect(ids(after).size).toBeGreaterThan(0);
    expect(new Set([...ids(before), ...ids(after)]).size).toBe(40);
    console.log(`webhook-pause (re-pointed): ${((Date.now() - started) / 1000).toFixed(1)} s; ${ids(before).size} of 40 to the old URL`);
  });
});
