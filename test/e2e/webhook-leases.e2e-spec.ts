import { ChildProcess } from 'node:child_process';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { QUEUE } from '../../src/webhooks/webhook.vocabulary';
import { runCli, startWorker as startWorkerProcess } from '../support/cli';
import { createTenant } from '../support/tenant';
import { createTestApp, eventually, ownerDataSource, sleep, TEST_CURSOR_SECRET } from '../support/test-app';
import { Received, WebhookReceiver } from '../support/webhook-receiver';

const ALL: Scope[] = [...ALL_SCOPES];

/** Two retries, 2 s then 3 s (±20%), then the delivery gives up. */
const SCHEDULE = [2, 3];
/** Each request the receivers answer takes this long: a job gets through a few before its deadline. */
const RECEIVER_MS = 800;
/**
 * One job slot, slow receivers, jobs that expire in 5 s: ten endpoints' batches wait in the queue
 * for each other far longer than a job's expiry (and than the three expiries after which the
 * earlier worker took a batch as lost and dispatched its deliveries again).
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

describe('webhook deliveries: the lease belongs to the job', () => {
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

/** Samples, every 50 ms until stopped, the most batches one endpoint had in the queue (waiting, retrying or running) at once. */
function outstandingSampler(db: DataSource): { stop: () => Promise<number> } {
  let most = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state < 'completed' GROUP BY data->>'endpoint_id'`,
        [QUEUE],
      );
      for (const { n } of rows) most = Math.max(most, n);
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return most;
    },
  };
}

/** Never two requests for one webhook-id in flight at once: each starts after the one before it was answered or cut. */
function expectOneAtATime(rx: WebhookReceiver): void {
  for (const id of rx.counts().keys()) {
    const attempts = rx.received.filter((r) => r.id === id).sort((a, b) => a.at - b.at);
    for (let k = 1; k < attempts.length; k++) expect(attempts[k].at).toBeGreaterThanOrEqual(attempts[k - 1].doneAt ?? Infinity);
  }
}

const PROCESS_ENV = {
  LOG_LEVEL: 'debug',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '4000',
  WEBHOOK_EXPIRE_SECONDS: '9',
  CURSOR_SECRET: TEST_CURSOR_SECRET,
  METRICS_PORT: 'off',
};

// After the block above (jest runs a file's blocks one after another): no other worker sends meanwhile.
describe('webhook workers killed at each step of a batch', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  const workers: ChildProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp(); // no worker of its own
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await Promise.all(receivers.map((r) => r.close()));
    await app?.close();
    await db?.destroy();
  });

  const startWorker = async (env: NodeJS.ProcessEnv = {}) => (await startWorkerProcess({ ...PROCESS_ENV, ...env }, workers)).process;

  async function kill(worker: ChildProcess): Promise<void> {
    worker.kill('SIGKILL');
    if (worker.exitCode === null && worker.signalCode === null) await new Promise((resolve) => worker.once('exit', resolve));
  }

  /** The jobs of the webhook queue by state, as pg-boss has them. */
  const jobStates = async (): Promise<string[]> =>
    (
      await db.query<Array<{ state: string }>>(
        `SELECT state::text AS state FROM pgboss.job WHERE name = $1 AND state < 'completed' ORDER BY state::text`,
        [QUEUE],
      )
    ).map((r) => r.state);

  it('SIGKILL after a batch is claimed, in the middle of its sending, and before its bookkeeping: every event arrives, never from two runs at once', async () => {
    const t = await createTenant(db, http, ALL);
    const rxs = [await WebhookReceiver.start(), await WebhookReceiver.start()];
    receivers.push(...rxs);
    const endpoints: string[] = [];
    for (const rx of rxs) {
      const out = await runCli({ WEBHOOK_ALLOW_PRIVATE: '1' }, 'webhooks:add', '--company', t.company.publicId, '--url', rx.url, '--json');
      expect(out.code).toBe(0);
      endpoints.push(JSON.parse(out.stdout).endpoint_id);
    }
    const sampler = outstandingSampler(db);
    const made: string[] = [];
    const arrived = (id: string) => rxs.every((rx) => rx.received.some((r) => r.event.data.object_id === id && r.answered === 200));

    // 1 and 2. One job slot, receivers that never answer: one endpoint's batch is sending (its run
    // hangs), the other's is claimed and waits in the queue. The worker dies with both.
    for (const rx of rxs) rx.answer = () => 'hang';
    const first = await startWorker({ WEBHOOK_JOB_SLOTS: '1' });
    for (let n = 0; n < 3; n++) made.push((await t.people.recording('meeting', { owner: t.seller })).publicId);
    await eventually(async () => rxs.some((rx) => rx.received.length > 0) && (await jobStates()).join() === 'active,created', 60_000);
    await kill(first);
    for (const rx of rxs) rx.answer = () => ({ status: 200 });

    // 3. A second worker runs both jobs (the claimed one at once, the running one once it expires).
    // Its next batch is caught after its requests were answered, before it records them: the test
    // holds the job's row, so the run's bookkeeping waits on it, and the worker dies there.
    const second = await startWorker();
    await eventually(async () => made.every(arrived), 90_000);
    const lock = db.createQueryRunner();
    await lock.connect();
    let locking: Promise<unknown> | undefined;
    try {
      for (const rx of rxs) {
        rx.answer = () => {
          // While the request is answered (1.5 s from now), the test takes the running jobs' rows.
          locking ??= lock
            .startTransaction()
            .then(() => lock.query(`SELECT id FROM pgboss.job WHERE name = $1 AND state = 'active' FOR UPDATE`, [QUEUE]));
          locking.catch(() => undefined);
          return { status: 200, delayMs: 1500 };
        };
      }
      const late = (await t.people.recording('meeting', { owner: t.seller })).publicId;
      made.push(late);
      await eventually(async () => rxs.every((rx) => rx.received.some((r) => r.event.data.object_id === late && r.answered === 200)), 60_000);
      // The run waits for the job's row (its bookkeeping), on a connection of the worker's.
      await eventually(async () => {
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'conversation-read-api-owner' AND wait_event_type = 'Lock'`,
        );
        return n > 0;
      }, 30_000);
      await locking; // it took the rows (a failure here fails the test)
      await kill(second);
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
    for (const rx of rxs) rx.answer = () => ({ status: 200 });
    const answeredBefore = rxs.map((rx) => rx.received.filter((r) => r.event.data.object_id === made[made.length - 1]).length);

    // A third worker runs that job again once it expires: the events whose bookkeeping died are sent again (at least once).
    await startWorker();
    await eventually(async () => {
      const rows = await Promise.all(
        endpoints.map(async (endpoint) => {
          const out = await runCli({ WEBHOOK_ALLOW_PRIVATE: '1' }, 'webhooks:deliveries', '--endpoint', endpoint, '--json');
          return JSON.parse(out.stdout).data as Array<{ status: string; attempts: number }>;
        }),
      );
      return rows.every((r) => r.length >= made.length && r.every((d) => d.status === 'delivered'));
    }, 120_000);
    expect(await sampler.stop()).toBe(1);
    for (const [i, rx] of rxs.entries()) {
      // Every event arrived, the one caught before its bookkeeping a second time.
      for (const id of made) expect(rx.received.some((r) => r.event.data.object_id === id && r.answered === 200)).toBe(true);
      expect(rx.received.filter((r) => r.event.data.object_id === made[made.length - 1]).length).toBeGreaterThan(answeredBefore[i]);
      expectOneAtATime(rx);
    }
  }, 600_000);
});
