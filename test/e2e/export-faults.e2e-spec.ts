import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DatabaseUrls } from '../../src/config/database-urls';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { ExportMetrics } from '../../src/export/export-metrics';
import { createClient, tokenFor } from '../support/credentials';
import { completeLinesOf, linesOf, openExport, rawBody, seedBigCompany, withDeadline } from '../support/export-stream';
import { startCluster, stopCluster } from '../support/postgres-control';
import { createTestApp, eventually } from '../support/test-app';

/**
 * The export when PostgreSQL goes away under it. The cluster is this file's own (started here,
 * stopped and restarted with pg_ctl as health.e2e-spec does the shared disposable one), so no
 * other spec, running meanwhile in another worker, has its database stopped under it.
 */
describe('GET /v1/export while PostgreSQL stops and comes back (a cluster of its own)', () => {
  let cluster: EmbeddedDatabase;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let base: string;
  let token: string;

  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    cluster = await startEmbeddedPostgres(join(process.env.TEST_ROOT!, `export-faults-${process.pid}`), { database: 'export_faults_test' });
    await migrate(new DatabaseUrls(cluster.apiUrl, cluster.ownerUrl, cluster.apiUrl));
    app = await createTestApp({
      urls: { api: cluster.apiUrl, owner: cluster.ownerUrl },
      // Connects fail fast while PostgreSQL is down; no reader here is idle long enough to be cut for it.
      env: { DB_CONNECT_TIMEOUT_MS: '500', EXPORT_IDLE_SECONDS: '600' },
    });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    http = request(app.getHttpServer());
    // Nothing of the tests' own holds a connection to the cluster through the outage.
    const owner = await new DataSource(dataSourceOptions(cluster.ownerUrl, { poolSize: 2, applicationName: 'tests-owner' })).initialize();
    try {
      const big = await seedBigCompany(owner, cluster.ownerUrl);
      token = await tokenFor(http, await createClient(owner, big, { scopes: [...ALL_SCOPES] }));
    } finally {
      await owner.destroy();
    }
  }, 600_000);

  afterAll(async () => {
    await app?.close();
    if (cluster) {
      // Once restarted by pg_ctl, the server is no longer the child that cluster.stop() knows.
      await stopCluster(cluster.dataDir).catch(() => undefined);
      await cluster.stop();
    }
  }, 120_000);

  it('a stream open when PostgreSQL stops ends without its trailer; requests answer 503 (never 500) until it is back, then 200, and a new export completes', async () => {
    const exports = app.get(ExportMetrics);
    const running = () => exports.stats.started - Object.values(exports.stats.ended).reduce((a, b) => a + b, 0);
    const statuses: Array<{ what: string; status: number }> = [];
    const seen = async (what: string, answer: PromiseLike<request.Response>) => {
      const res = await answer;
      statuses.push({ what, status: res.status });
      return res;
    };
    const path = '/v1/export?types=meeting&include=transcript';
    const erroredBefore = exports.stats.ended.error;

    // A slow reader: it takes a few batches, then nothing for now; the export is in its middle.
    const stream = openExport(base, path, token);
    const res = await stream.headed;
    statuses.push({ what: 'export before', status: res.statusCode! });
    expect(res.statusCode).toBe(200);
    const before = completeLinesOf(await stream.readLines(200, 60_000));
    expect(before.length).toBeGreaterThanOrEqual(200);
    expect(before.filter((l) => l.object === 'export')).toEqual([]);
    expect(running()).toBe(1);

    await stopCluster(cluster.dataDir);
    try {
      const ready = await seen('ready while down', http.get('/health/ready'));
      expect(ready.status).toBe(503);
      expect(ready.body.details.database.status).toBe('down');
      const list = await seen('list while down', get('/v1/meetings?limit=5'));
      expect(list.status).toBe(503);
      expect(list.body.error.code).toBe('SERVICE_UNAVAILABLE');

      // The reader takes the rest: the server's next batch cannot be read, and the stream is cut.
      stream.resume();
      const { body, complete } = await withDeadline(stream.ended, 60_000, 'the export did not end after PostgreSQL stopped');
      const lines = completeLinesOf(body);
      expect(lines.length).toBeGreaterThanOrEqual(before.length);
      expect(lines.length).toBeLessThan(6000);
      expect(lines.filter((l) => l.object === 'export')).toEqual([]);
      expect(complete).toBe(false); // a cut, not an end: the connection is reset mid-body
      await eventually(async () => running() === 0, 30_000);
      expect(exports.stats.ended.error).toBe(erroredBefore + 1); // ended for the database, not the reader

      // Still down: still 503.
      expect((await seen('ready after the cut', http.get('/health/ready'))).status).toBe(503);
      expect((await seen('list after the cut', get('/v1/meetings?limit=5'))).status).toBe(503);
      expect((await seen('export while down', get(path))).status).toBe(503);
    } finally {
      await startCluster(cluster.dataDir, cluster.port);
    }

    // Back: 200 again (the pools reconnect), and a whole export with its trailer.
    await eventually(async () => (await seen('ready after restart', http.get('/health/ready'))).status === 200, 30_000);
    await eventually(async () => (await seen('list after restart', get('/v1/meetings?limit=5'))).status === 200, 30_000);
    const again = await seen('export after restart', get(path).buffer(true).parse(rawBody));
    expect(again.status).toBe(200);
    const all = linesOf(again.body as Buffer);
    const trailer = all.pop()!;
    expect(trailer).toEqual({ object: 'export', records: { meeting: 6000 }, feed_cursor: again.headers['feed-cursor'] });
    const ids = all.map((l) => l.id as string);
    expect(new Set(ids).size).toBe(6000);
    expect(ids).toEqual([...ids].sort());
    expect(all.slice(0, before.length)).toEqual(before); // the same records as before the outage

    // Every answer was a 200 or a 503: no 500 at any point.
    expect(statuses.filter((s) => s.status !== 200 && s.status !== 503)).toEqual([]);
    expect(statuses.filter((s) => s.status === 503).length).toBeGreaterThanOrEqual(5);
  }, 300_000);
});
