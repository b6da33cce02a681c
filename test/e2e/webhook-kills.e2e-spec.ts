import { ChildProcess } from 'node:child_process';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { QUEUE } from '../../src/webhooks/webhook.vocabulary';
import { runCli, startWorker as startWorkerProcess } from '../support/cli';
import { createTenant } from '../support/tenant';
import { createTestApp, eventually, ownerDataSource, TEST_CURSOR_SECRET } from '../support/test-app';
import { outstandingSampler } from '../support/webhook-queue';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhook workers as processes (`npm run worker`), SIGKILLed at each step of a batch: claimed and
 * waiting, in the middle of sending, and after sending but before the run's bookkeeping. Every
 * event arrives, and never from two runs at once.
 */
const ALL: Scope[] = [...ALL_SCOPES];

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

// No other worker sends meanwhile: a file runs on its Jest worker's own database (test/support/global-setup.ts).
describe('webhook workers killed at each step of a batch [waits]', () => {
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
      await eventually(
        async () => rxs.every((rx) => rx.received.some((r) => r.event.data.object_id === late && r.answered === 200)),
        60_000,
      );
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
