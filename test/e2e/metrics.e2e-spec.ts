import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { familyOf, parseExposition, Sample } from '../../src/metrics/exposition';
import { Metrics, METRIC_PREFIX } from '../../src/metrics/metrics';
import { startMetricsServer } from '../../src/metrics/metrics-server';
import { freePort } from '../../src/database/embedded-postgres';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { WebhooksModule } from '../../src/webhooks/webhooks.module';
import { WorkerMetrics } from '../../src/webhooks/worker-metrics';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { startServiceProcess } from '../support/service-process';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';

/** The worker's gauges beside the API's, as in a process running WORKER=1, without its loops. */
@Module({ imports: [WebhooksModule], providers: [WorkerMetrics] })
class WorkerGauges {}

const DASHBOARD = join(__dirname, '../../deploy/grafana/conversation-read-api.json');

describe('metrics (METRICS_PORT)', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let server: Server;
  let metricsUrl: string;
  let http: ReturnType<typeof request>;
  let token: string;
  let meetingId: string;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ extra: [WorkerGauges], env: { RATE_LIMIT_CLIENT: '5/60' } })]);
    server = await startMetricsServer(app.get(Metrics), 0, '127.0.0.1');
    metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    http = request(app.getHttpServer());
    const company = await createCompany(db);
    const factory = new RecordingsFactory(db, company.id);
    meetingId = (await factory.recording('meeting', { owner: await factory.user({ email: `metrics.${company.publicId}@example.com` }) }))
      .publicId;
    token = await tokenFor(http, await createClient(db, company));
  });
  afterAll(async () => {
    server.close();
    await Promise.all([db.destroy(), app.close()]);
  });

  async function scrape(): Promise<Sample[]> {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  }
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === `${METRIC_PREFIX}${name}` && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((n, s) => n + s.value, 0);

  it('counts and times requests by method, route template and status, never by path', async () => {
    const auth = { authorization: `Bearer ${token}` };
    await http.get(`/v1/meetings/${meetingId}`).set(auth).expect(200);
    await http.get('/v1/meetings/mtg_0000000000000000000000').set(auth).expect(404);
    await http.get('/v1/meetings?owner_email=someone%40example.com').expect(401);
    await http.get('/no/such/route?x=1').expect(404);
    const samples = await scrape();
    const route = '/v1/meetings/:meeting_id';
    expect(value(samples, 'http_requests_total', { method: 'GET', route, status: '200' })).toBe(1);
    expect(value(samples, 'http_requests_total', { route, status: '404' })).toBe(1);
    expect(value(samples, 'http_requests_total', { route: '/v1/meetings', status: '401' })).toBe(1);
    expect(value(samples, 'http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(value(samples, 'http_request_duration_seconds_count', { route, status: '200' })).toBe(1);
    expect(value(samples, 'http_request_duration_seconds_bucket', { route, status: '200', le: '+Inf' })).toBe(1);
    // No label value is an id, an address, a query or a path that was not a template.
    for (const s of samples) {
      for (const v of Object.values(s.labels)) expect(v).not.toMatch(/mtg_|@|\?|no\/such/);
    }
  });

  it('counts rate-limit decisions per policy: allowed while under the quota, refused past it', async () => {
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await http.get('/v1/context').set('authorization', `Bearer ${token}`)).status);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      value(after, 'rate_limit_decisions_total', labels) - value(before, 'rate_limit_decisions_total', labels);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(delta({ policy: 'client', decision: 'refused' })).toBe(refused);
    expect(delta({ policy: 'client', decision: 'allowed' })).toBe(statuses.length - refused);
    expect(delta({ policy: 'company', decision: 'allowed' })).toBe(statuses.length - refused);
  });

  it('shows the audit trail, the pools, the dependencies, the feed and the webhook backlog', async () => {
    const samples = await scrape();
    expect(value(samples, 'audit_batch_rows_count')).toBeGreaterThan(0);
    expect(value(samples, 'audit_commit_duration_seconds_count', { outcome: 'committed' })).toBeGreaterThan(0);
    expect(value(samples, 'audit_rows_total', { outcome: 'written' })).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === `${METRIC_PREFIX}audit_queue_rows`)).toBe(true);
    expect(value(samples, 'db_pool_connections', { pool: 'api' })).toBeGreaterThan(0);
    expect(samples.filter((s) => s.name === `${METRIC_PREFIX}db_pool_connections`).map((s) => s.labels.pool)).toEqual(
      expect.arrayContaining(['api', 'audit', 'owner']),
    );
    expect(value(samples, 'db_pool_wait_seconds_count', { pool: 'api' })).toBeGreaterThan(0);
    expect(value(samples, 'dependency_up', { dependency: 'postgres' })).toBe(1);
    expect(value(samples, 'dependency_up', { dependency: 'audit_store' })).toBe(1);
    for (const gauge of [
      'change_feed_lag_seconds',
      'webhook_dispatch_lag_seconds',
      'webhook_deliveries_pending',
      'webhook_oldest_pending_delivery_seconds',
      'webhook_deliveries_waiting',
    ]) {
      const found = samples.filter((s) => s.name === `${METRIC_PREFIX}${gauge}`);
      expect({ gauge, count: found.length }).toEqual({ gauge, count: 1 });
      expect(found[0].value).toBeGreaterThanOrEqual(0);
    }
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('sees a transaction holding the feed back as change-feed lag [waits]', async () => {
    const company = await createCompany(db);
    const factory = new RecordingsFactory(db, company.id);
    const holder = await db.createQueryRunner();
    await holder.connect();
    try {
      // An open transaction with an xid: every entry committed after it waits above the horizon.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await factory.recording('meeting', { owner: await factory.user({ email: `lag.${company.publicId}@example.com` }) });
      await new Promise((r) => setTimeout(r, 1100));
      const held = value(await scrape(), 'change_feed_lag_seconds');
      expect(held).toBeGreaterThanOrEqual(1);
    } finally {
      await holder.query('ROLLBACK');
      await holder.release();
    }
    // Back under a second once it ended: past the readings' 1 s freshness, however slow the machine.
    let lag = Infinity;
    await eventually(async () => (lag = value(await scrape(), 'change_feed_lag_seconds')) < 1, 30_000).catch(() => undefined);
    expect(lag).toBeLessThan(1);
  });

  it('runs the readings that query (the dependency checks) at most once a second under a burst of scrapes; counters stay live', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // what earlier tests read has expired
    const dataSource = app.get(DataSource);
    const query = dataSource.query.bind(dataSource);
    let checks = 0;
    const spy = jest.spyOn(dataSource, 'query').mockImplementation((sql: string, ...rest: unknown[]) => {
      if (sql === 'SELECT 1') checks++;
      return (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest);
    });
    try {
      const started = Date.now();
      const before = value(await scrape(), 'http_requests_total', { route: '/v1/context' });
      await Promise.all(Array.from({ length: 20 }, () => scrape()));
      await http.get('/v1/context').auth(token, { type: 'bearer' });
      const after = await scrape();
      for (let i = 0; i < 20; i++) await scrape();
      const elapsed = Date.now() - started;
      // One round of dependency checks per started second at most (42 scrapes in all).
      expect(checks).toBeGreaterThanOrEqual(1);
      expect(checks).toBeLessThanOrEqual(Math.floor(elapsed / 1000) + 1);
      // The request made in between is counted by the very next scrape.
      expect(value(after, 'http_requests_total', { route: '/v1/context' })).toBe(before + 1);
    } finally {
      spy.mockRestore();
    }
  });

  it('serves nothing else on its port, and nothing of it on the public port', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/v1/context'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(404);
    await http.get('/metrics').expect(404);
  });

  it('records nothing with METRICS_PORT=off', () => {
    const off = new Metrics(false);
    off.request('GET', '/v1/context', 200, 0.01);
    off.rateLimit('client', true);
    off.auditWritten(3, 0.01, true);
    return off.scrape().then(({ body }) => {
      const samples = parseExposition(body);
      expect(samples.filter((s) => s.value !== 0)).toEqual([]);
      expect(samples.some((s) => s.name.includes('process_'))).toBe(false);
    });
  });

  it('the Grafana dashboard queries only metrics the service exports', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
    const queried = new Set(
      dashboard.panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) => [...t.expr.matchAll(new RegExp(`${METRIC_PREFIX}[a-z0-9_]+`, 'g'))].map((m) => m[0])),
      ),
    );
    expect(queried.size).toBeGreaterThan(15);
    const exported = new Set((await scrape()).flatMap((s) => [s.name, familyOf(s.name)]));
    expect([...queried].filter((name) => !exported.has(name))).toEqual([]);
  });
});

describe('the metrics port of the service process (METRICS_HOST)', () => {
  /** This machine's first address that is not loopback: what another machine would connect to. */
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

  /** The status of GET /metrics at `host:port`, or the connection's error code. */
  const status = (host: string, port: number) =>
    fetch(`http://${host}:${port}/metrics`).then(
      (res) => res.status,
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
    );

  it('listens on loopback only by default: a connection to the machine’s other address is refused', async () => {
    expect(outside).toBeDefined(); // a machine with a network interface: the test means nothing without one
    const port = await freePort();
    const service = await startServiceProcess({ METRICS_PORT: String(port), LOG_LEVEL: 'info' });
    try {
      expect(await status('127.0.0.1', port)).toBe(200);
      expect(await status(outside!, port)).toBe('ECONNREFUSED');
      expect(service.output()).toContain(`metrics on http://127.0.0.1:${port}/metrics`);
    } finally {
      await service.stop();
    }
  });

  it('serves every interface with METRICS_HOST=0.0.0.0 (the Kubernetes manifests’ setting)', async () => {
    const port = await freePort();
    const service = await startServiceProcess({ METRICS_PORT: String(port), METRICS_HOST: '0.0.0.0' });
    try {
      expect(await status(outside!, port)).toBe(200);
      expect(await status('127.0.0.1', port)).toBe(200);
    } finally {
      await service.stop();
    }
  });
});
