import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ShutdownState } from '../../src/common/http/shutdown-state';
import { startFaultsCluster, stopFaultsCluster } from '../support/postgres-control';
import { createClient, requestToken } from '../support/credentials';
import { createCompany } from '../support/factories';
import { createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';

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

  it('keeps answering through a PostgreSQL restart under traffic: only 200 or a fast 503, never a 500, back to 200 within 5 s', async () => {
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
