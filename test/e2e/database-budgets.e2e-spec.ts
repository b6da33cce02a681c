import { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Company } from '../../src/companies/company.entity';
import { createCompany } from '../support/factories';
import { PipelineProbeModule } from '../support/pipeline-probe.module';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';

/** The API pool the app's tenant transactions draw from. */
const apiPool = (app: NestExpressApplication): Pool => (app.get(DataSource).driver as PostgresDriver).master as Pool;

/** An answer with how long it took. */
async function timed(test: request.Test): Promise<{ status: number; body: { error?: { code?: string } }; ms: number }> {
  const started = Date.now();
  const res = await test;
  return { status: res.status, body: res.body, ms: Date.now() - started };
}

describe('database budgets: slow statements and pool exhaustion', () => {
  const STATEMENT_TIMEOUT_MS = 400;
  const CONNECT_TIMEOUT_MS = 300;
  const POOL_SIZE = 3;
  let owner: DataSource;
  let company: Company;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  const probe = (path: string) => http.get(`/v1/_probe/${path}`).set('x-test-company', company.id);

  beforeAll(async () => {
    owner = await ownerDataSource();
    company = await createCompany(owner);
    app = await createTestApp({
      extra: [PipelineProbeModule],
      env: {
        DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DB_POOL_SIZE: String(POOL_SIZE),
      },
    });
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([app.close(), owner.destroy()]));

  it('runs tenant statements with a statement timeout and an idle-in-transaction timeout set on the server', async () => {
    const res = await probe('settings').expect(200);
    expect(res.body.data).toEqual({ statement_timeout: `${STATEMENT_TIMEOUT_MS}ms`, idle_in_transaction_session_timeout: '10s' });
  });

  it('cancels a statement over its budget on the server and answers 503 SERVICE_UNAVAILABLE in time', async () => {
    const res = await timed(probe('sleep/5000'));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(res.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
    expect(res.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000);
    // Not merely abandoned by the client: no backend is still sleeping.
    const running = await owner.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(%'`,
    );
    expect(running).toEqual([{ n: 0 }]);
    // The connection went back to the pool clean: the next statement on it works.
    await probe('sleep/1').expect(200);
  });

  it('answers ten times the pool size in concurrent requests with 200 or a fast 503, and the pool returns to its baseline', async () => {
    const results = await Promise.all(Array.from({ length: POOL_SIZE * 10 }, () => timed(probe('sleep/150'))));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(POOL_SIZE);
    for (const r of results.filter((x) => x.status === 503)) expect(r.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // Nobody waits longer than the connect timeout for a connection, plus one statement.
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(CONNECT_TIMEOUT_MS + 150 + 1000);
    const pool = apiPool(app);
    await eventually(async () => pool.waitingCount === 0 && pool.idleCount === pool.totalCount, 2000);
    expect(pool.totalCount).toBeLessThanOrEqual(POOL_SIZE);
    await probe('sleep/1').expect(200);
  });
});
