import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { runCli } from '../support/cli';
import { createTenant } from '../support/tenant';
import { createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';
import { outstandingSampler } from '../support/webhook-queue';
import { Received, WebhookReceiver } from '../support/webhook-receiver';

/**
 * The lease belongs to the job, forced with a backlog that outlasts job expiries. One test, and
 * about a minute of it is the proof itself: two rounds of the backlog (every first attempt
 * refused, then every retry), each four job expiries long so that a lease taken as lost would
 * show, then a wait past one more expiry. Splitting it would only repeat that wait.
 */
const ALL: Scope[] = [...ALL_SCOPES];

/** Two retries, 2 s then 3 s (±20%), then the delivery gives up. */
const SCHEDULE = [2, 3];
/**
 * Each request the receivers answer takes this long: a batch (eight events, two at a time) takes
 * about 2 s of its job's 5, and a slow machine has three quarters of the request timeout to spare.
 */
const RECEIVER_MS = 500;
/**
 * One job slot, slow receivers, jobs that expire in 5 s: ten endpoints' batches wait in the queue
 * for each other (about 20 s a round) far longer than a job's expiry, and than the three expiries
 * after which the earlier worker took a batch as lost and dispatched its deliveries again.
 */
const ENV = {
  WORKER: '1',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','),
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_EXPIRE_SECONDS: '5',
  WEBHOOK_JOB_SLOTS: '1',
  WEBHOOK_CONCURRENCY: '2',
};
const ENDPOINTS = 10;
const MEETINGS = 8;

/** Jitter takes at most 20% off a retry's delay; the receiver's and the database's clocks are one clock here, give 100 ms. */
const earliest = (seconds: number) => seconds * 800 - 100;

describe('webhook deliveries: the lease belongs to the job [waits]', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp({ env: ENV });
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await app?.close();
    await db?.destroy();
  });

  /** The most batches one endpoint had in the queue (waiting or running) at once. */
  const sampleOutstanding = () => outstandingSampler(db);

  /** The admin's CLI, as an admin runs it. */
  const cli = async (...args: string[]) => {
    const out = await runCli({ WEBHOOK_ALLOW_PRIVATE: '1' }, ...args, '--json');
    expect(out.code).toBe(0);
    return JSON.parse(out.stdout);
  };

  it('a backlog longer than a job expiry: no delivery sent twice or before its time, one batch per endpoint, a failing endpoint fails only after its schedule', async () => {
    const t = await createTenant(db, http, ALL);
    const endpointIds: string[] = [];
    // Nine endpoints refuse each event's first attempt and accept its second; the last refuses every attempt.
    for (let i = 0; i < ENDPOINTS; i++) {
      const rx = await WebhookReceiver.start();
      const failing = i === ENDPOINTS - 1;
      rx.answer = (r: Received) => ({ status: failing || r.attempt === 1 ? 500 : 200, delayMs: RECEIVER_MS });
      receivers.push(rx);
    }
    for (let i = 0; i < ENDPOINTS; i += 5) {
      const added = await Promise.all(
        receivers.slice(i, i + 5).map((rx) => cli('webhooks:add', '--company', t.company.publicId, '--url', rx.url)),
      );
      endpointIds.push(...added.map((e: { endpoint_id: string }) => e.endpoint_id));
    }
    const sampler = sampleOutstanding();
    const made: string[] = [];
    for (let n = 0; n < MEETINGS; n++) made.push((await t.people.recording('meeting', { owner: t.seller })).publicId);

    const accepting = receivers.slice(0, -1);
    const failingRx = receivers[ENDPOINTS - 1];
    const failingEndpoint = endpointIds[ENDPOINTS - 1];
    const deliveries = async (): Promise<Array<{ status: string; attempts: number }>> =>
      (await cli('webhooks:deliveries', '--endpoint', failingEndpoint, '--limit', '100')).data;
    await eventually(async () => {
      const everyMeeting = accepting.every((rx) =>
        made.every((id) => rx.received.some((r) => r.event.data.object_id === id && r.attempt === 2)),
      );
      if (!everyMeeting) return false;
      if (failingRx.counts().size < MEETINGS) return false;
      const rows = await deliveries();
      return rows.length > 0 && rows.every((row) => row.status === 'failed');
    }, 360_000);
    await sleep(7000); // past a job's expiry and pg-boss's next look: a batch sent twice would show by now
    const most = await sampler.stop();

    // One batch per endpoint outstanding at every sample.
    expect(most).toBe(1);
    // Every event reached every endpoint; an accepting endpoint got each exactly twice (the refusal, then the success).
    const ids = [...accepting[0].counts().keys()];
    expect(ids.length).toBeGreaterThanOrEqual(MEETINGS);
    for (const rx of accepting) {
      expect([...rx.counts().keys()].sort()).toEqual([...ids].sort());
      expect([...rx.counts().values()].every((n) => n === 2)).toBe(true);
    }
    // Never two requests for one delivery in flight at once, and no retry before its time.
    for (const rx of receivers) {
      for (const id of rx.counts().keys()) {
        const attempts = rx.received.filter((r) => r.id === id).sort((a, b) => a.at - b.at);
        for (let k = 1; k < attempts.length; k++) {
          expect(attempts[k].at - attempts[k - 1].at).toBeGreaterThanOrEqual(RECEIVER_MS + earliest(SCHEDULE[k - 1]));
        }
      }
    }
    // The failing endpoint: each delivery tried once and then on every step of its schedule, no more, and given up only then.
    expect([...failingRx.counts().values()].every((n) => n === SCHEDULE.length + 1)).toBe(true);
    for (const row of await deliveries()) expect(row).toMatchObject({ status: 'failed', attempts: SCHEDULE.length + 1 });
    const listed: Array<{ endpoint_id: string; state: string; failing_since: string | null }> = (
      await cli('webhooks:list', '--company', t.company.publicId)
    ).data;
    const state = listed.find((e) => e.endpoint_id === failingEndpoint)!;
    expect(state.state).toBe('failing');
    const firstAttempt = Math.min(...failingRx.received.map((r) => r.at));
    expect(Date.parse(state.failing_since!) - firstAttempt).toBeGreaterThanOrEqual(earliest(SCHEDULE[0] + SCHEDULE[1]));
  }, 480_000);
});
