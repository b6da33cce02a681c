import { ChildProcess } from 'node:child_process';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ShutdownState } from '../../src/common/http/shutdown-state';
import { startFaultsCluster, stopFaultsCluster } from '../support/postgres-control';
import { createClient, requestToken } from '../support/credentials';
import { createCompany } from '../support/factories';
import { createTestApp, eventually, ownerDataSource, sleep, TEST_WEBHOOK_SECRET_KEY } from '../support/test-app';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { runCli, startWorker } from '../support/cli';
import { startServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';

describe('health probes', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  // This suite owns the disposable cluster: it stops and restarts PostgreSQL under the app.
  beforeAll(async () => {
    app = await createTestApp({ faults: true, env: { DB_CONNECT_TIMEOUT_MS: '500' } });
    http = request(app.getHttpServer());
  });
  afterAll(() => app.close());

  it('GET /health/live answers 200 with a Terminus body and no auth', async () => {
    const res = await http.get('/health/live').expect(200);
    expect(res.body).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
  });

  it('GET /health/ready answers 200 when PostgreSQL answers', async () => {
    const res = await http.get('/health/ready').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.details.database).toEqual({ status: 'up' });
  });

  it('probes are not under /v1, carry no envelope and are not cached as API responses', async () => {
    const res = await http.get('/health/ready');
    expect(res.body.data).toBeUndefined();
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('GET /health/ready turns 503 when PostgreSQL stops and back to 200 when it returns, without a restart', async () => {
    await stopFaultsCluster();
    try {
      const down = await http.get('/health/ready');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('error');
      expect(down.body.details.database.status).toBe('down');
      // liveness does not depend on the database
      await http.get('/health/live').expect(200);
    } finally {
      await startFaultsCluster();
    }
    const ms = await eventually(async () => (await http.get('/health/ready')).status === 200, 10_000);
    expect(ms).toBeLessThan(10_000);
  });

  it('answers the token endpoint and /v1 with 503 SERVICE_UNAVAILABLE, never 401 or 500, while PostgreSQL is down', async () => {
    const owner = await ownerDataSource(true);
    const client = await createClient(owner, await createCompany(owner)).finally(() => owner.destroy());
    const token = (await requestToken(http, client).expect(200)).body.access_token;
    const context = () => http.get('/v1/context').set('Authorization', `Bearer ${token}`);
    await stopFaultsCluster();
    try {
      const issued = await requestToken(http, client);
      expect(issued.status).toBe(503);
      expect(issued.body).toEqual({ error: 'SERVICE_UNAVAILABLE', error_description: expect.any(String) });
      const read = await context();
      expect(read.status).toBe(503);
      expect(read.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', type: 'ServiceUnavailableError' });
    } finally {
      await startFaultsCluster();
    }
    await eventually(async () => (await context()).status === 200, 10_000);
  });

  it('keeps answering through a PostgreSQL restart under traffic: only 200 or a fast 503, never a 500, back to 200 within 5 s [waits]', async () => {
    const owner = await ownerDataSource(true);
    const client = await createClient(owner, await createCompany(owner)).finally(() => owner.destroy());
    const token = (await requestToken(http, client).expect(200)).body.access_token;
    const routes = ['/v1/context', '/v1/meetings?limit=5'];
    const seen: Array<{ status: number; code?: string; ms: number; at: number }> = [];
    let running = true;
    // Eight clients in a loop, reading through the credential check and a tenant transaction.
    const workers = Array.from({ length: 8 }, async (_, i) => {
      while (running) {
        const at = Date.now();
        const res = await http.get(routes[i % routes.length]).set('Authorization', `Bearer ${token}`);
        seen.push({ status: res.status, code: res.body?.error?.code, ms: Date.now() - at, at });
      }
    });
    await sleep(500);
    await stopFaultsCluster(); // fast shutdown: every pooled connection, busy or idle, is terminated
    let upAt = 0;
    try {
      await sleep(1500);
      expect((await http.get('/health/ready')).status).toBe(503);
    } finally {
      await startFaultsCluster();
      upAt = Date.now();
    }
    const recovery = await eventually(async () => seen.some((s) => s.at >= upAt && s.status === 200), 5000);
    await eventually(async () => (await http.get('/health/ready')).status === 200, 5000);
    await sleep(500);
    running = false;
    await Promise.all(workers);

    const outage = seen.filter((s) => s.status !== 200);
    expect(outage.length).toBeGreaterThan(0);
    // A read caught after its query but before its audit row committed is refused as such.
    const answers = new Set(outage.map((s) => `${s.status} ${s.code}`));
    expect(answers).toContain('503 SERVICE_UNAVAILABLE');
    expect([...answers].every((a) => ['503 SERVICE_UNAVAILABLE', '503 AUDIT_UNAVAILABLE'].includes(a))).toBe(true);
    // Within the connect timeout (500 ms here), plus room for a loaded test machine.
    expect(Math.max(...outage.map((s) => s.ms))).toBeLessThan(500 + 1500);
    expect(recovery).toBeLessThan(5000);
    // Once back, everything succeeds.
    expect(seen.filter((s) => s.at >= upAt + recovery + 200).every((s) => s.status === 200)).toBe(true);
  }, 30_000);

  it('GET /health/ready answers 503 from the moment shutdown begins, while liveness stays 200', async () => {
    app.get(ShutdownState).begin();
    const res = await http.get('/health/ready').expect(503);
    expect(res.body.details.shutdown).toEqual({ status: 'down', message: 'shutting down' });
    await http.get('/health/live').expect(200);
  });
});

// After the probes, in the same file: this suite owns the disposable cluster, and jest runs a
// file's blocks one after another, so nothing else stops it meanwhile.
describe('the worker through PostgreSQL restarts [waits]', () => {
  /** The two ways the worker runs: alone, and in the API process. */
  const ways: Array<[string, (env: NodeJS.ProcessEnv) => Promise<{ child: ChildProcess; output: () => string }>]> = [
    ['npm run worker', async (env) => startWorker(env).then((w) => ({ child: w.process, output: w.output }))],
    [
      'the API process with WORKER=1',
      async (env) => {
        const api = await startServiceProcess({ ...env, WORKER: '1', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY });
        await eventually(async () => api.output().includes('worker running:'), 90_000);
        return api;
      },
    ],
  ];

  it.each(ways)('%s never exits, and delivers every change committed around three restarts at random moments', async (_way, start) => {
    const owner = await ownerDataSource(true);
    const rx = await WebhookReceiver.start();
    const env = {
      DATABASE_URL: process.env.TEST_FAULTS_DATABASE_URL,
      MIGRATION_DATABASE_URL: process.env.TEST_FAULTS_MIGRATION_DATABASE_URL,
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '4000',
      WEBHOOK_EXPIRE_SECONDS: '9',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1,1,1',
      METRICS_PORT: 'off',
      LOG_LEVEL: 'info',
    };
    const { child: worker, output: logged } = await start(env);
    let output = '';
    try {
      const company = await createCompany(owner);
      const people = new RecordingsFactory(owner, company.id);
      const seller = await people.user();
      const added = await runCli(env, 'webhooks:add', '--company', company.publicId, '--url', rx.url, '--json');
      if (added.code !== 0) throw new Error(`webhooks:add: ${added.stdout} ${added.stderr}`);

      // A steady flow of changes; a write caught by a restart is tried again (and, if its commit
      // was lost on the way back, it is simply not expected).
      const committed: string[] = [];
      let writing = true;
      const writer = (async () => {
        while (writing) {
          await people
            .recording('meeting', { owner: seller })
            .then((m) => committed.push(m.publicId))
            .catch(() => sleep(200));
          await sleep(50);
        }
      })();
      for (let i = 0; i < 3; i++) {
        await sleep(1000 + Math.random() * 2000);
        await stopFaultsCluster();
        await sleep(500 + Math.random() * 1500);
        await startFaultsCluster();
      }
      await sleep(1500);
      writing = false;
      await writer;
      expect(committed.length).toBeGreaterThan(10);
      const delivered = () => new Set(rx.received.map((r) => r.event.data.object_id));
      await eventually(async () => {
        output = logged();
        if (worker.exitCode !== null || worker.signalCode !== null) throw new Error(`the worker exited: ${output}`);
        const seen = delivered();
        return committed.every((id) => seen.has(id));
      }, 180_000).catch((error: Error) => {
        const seen = delivered();
        throw new Error(
          `${error.message}: ${committed.filter((id) => !seen.has(id)).length} of ${committed.length} undelivered\n${output.slice(-3000)}`,
        );
      });
      expect([worker.exitCode, worker.signalCode]).toEqual([null, null]);
      expect(logged()).toMatch(/connection lost|terminat/i); // it did see the restarts
    } finally {
      worker.kill('SIGKILL');
      await rx.close();
      await owner.destroy();
    }
  }, 360_000);
});
