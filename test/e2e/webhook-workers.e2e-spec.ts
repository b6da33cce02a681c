import { ChildProcess } from 'node:child_process';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { runCli, startWorker as startWorkerProcess } from '../support/cli';
import { createTenant, Tenant } from '../support/tenant';
import { createTestApp, eventually, ownerDataSource, sleep, TEST_CURSOR_SECRET } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const ALL: Scope[] = [...ALL_SCOPES];

/** Longer than a job's expiry (9 s here) and pg-boss's next look at it: a job sent twice by expiring would show by then. */
const QUIET_MS = 10_000;

/** Worker processes as a deployment runs them (`npm run worker`), with a short expiry so a dead one's jobs come back soon. */
const PROCESS_ENV = {
  LOG_LEVEL: 'debug',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_SCHEDULE: '1,2,4',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '4000',
  WEBHOOK_EXPIRE_SECONDS: '9',
  CURSOR_SECRET: TEST_CURSOR_SECRET,
};

// No other worker sends meanwhile: a file runs on its Jest worker's own database (test/support/global-setup.ts).
describe('webhook workers: several processes on one database [waits]', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  const workers: ChildProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp(); // no worker of its own: tokens and data only
    http = request(app.getHttpServer());
  });

  afterEach(async () => {
    for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  const startWorker = () => startWorkerProcess(PROCESS_ENV, workers);

  async function endpointFor(t: Tenant, rx: WebhookReceiver): Promise<string> {
    const out = await runCli({ WEBHOOK_ALLOW_PRIVATE: '1' }, 'webhooks:add', '--company', t.company.publicId, '--url', rx.url, '--json');
    expect(out.code).toBe(0);
    return JSON.parse(out.stdout).endpoint_id;
  }

  async function receiverFor(t: Tenant): Promise<WebhookReceiver> {
    const rx = await WebhookReceiver.start();
    receivers.push(rx);
    await endpointFor(t, rx);
    return rx;
  }

  it('two workers share the work and send each event once', async () => {
    const pair = await Promise.all([startWorker(), startWorker()]);
    const tenants = await Promise.all([0, 1, 2].map(() => createTenant(db, http, ALL)));
    const rxs = await Promise.all(tenants.map(receiverFor));
    const made: string[][] = tenants.map(() => []);
    // Rounds of 40 meetings per company, the companies' writers at once, until both workers have
    // sent a batch: which worker fetches a job is up to their polls, so one round may all go to one.
    for (let round = 0; round < 5 && !pair.every((w) => w.output().includes('sent a batch of')); round++) {
      await Promise.all(
        tenants.map(async (t, i) => {
          for (let n = 0; n < 40; n++) made[i].push((await t.people.recording('meeting', { owner: t.seller })).publicId);
        }),
      );
      await eventually(
        async () => rxs.every((rx, i) => made[i].every((id) => rx.received.some((r) => r.event.data.object_id === id))),
        30_000,
      );
    }
    await sleep(QUIET_MS);
    for (const [i, rx] of rxs.entries()) {
      expect(rx.received).toHaveLength(made[i].length);
      expect([...rx.counts().values()].every((n) => n === 1)).toBe(true);
    }
    // Both sent batches.
    for (const worker of pair) expect(worker.output()).toContain('sent a batch of');
  });

  it('a worker killed in the middle of sending: another one delivers its jobs', async () => {
    const first = await startWorker();
    const t = await createTenant(db, http, ALL);
    const rx = await WebhookReceiver.start();
    receivers.push(rx);
    rx.answer = () => 'hang'; // the first worker's requests get no answer
    const endpoint = await endpointFor(t, rx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.people.recording('meeting', { owner: t.seller })).publicId);
    await eventually(async () => rx.received.length >= 1, 45_000);
    first.process.kill('SIGKILL'); // well within its 4 s attempt timeout: the job is still its own
    await new Promise((resolve) => first.process.once('exit', resolve));
    const hung = new Set(rx.received.map((r) => r.id));

    rx.answer = () => ({ status: 200 });
    await startWorker();
    // The job comes back after its expiry; the second worker sends everything, the hung ones a second time.
    await eventually(
      async () => ids.every((id) => rx.received.some((r) => r.event.data.object_id === id && (r.attempt > 1 || !hung.has(r.id)))),
      40_000,
    );
    const out = await runCli({ WEBHOOK_ALLOW_PRIVATE: '1' }, 'webhooks:deliveries', '--endpoint', endpoint, '--json');
    const rows = JSON.parse(out.stdout).data as Array<{ status: string; attempts: number }>;
    expect(rows).toHaveLength(5);
    // Only the second worker's attempts were recorded: the first died before its bookkeeping.
    for (const row of rows) expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    expect([...hung].every((id) => rx.counts().get(id)! >= 2)).toBe(true);
  });
});
