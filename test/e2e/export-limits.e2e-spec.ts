import { get as httpGet, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { ExportPool } from '../../src/database/export-pool';
import { parseExposition, Sample } from '../../src/metrics/exposition';
import { Metrics, METRIC_PREFIX } from '../../src/metrics/metrics';
import { startMetricsServer } from '../../src/metrics/metrics-server';
import { createClient, requestToken, TestClient, tokenFor } from '../support/credentials';
import { completeLinesOf, linesOf, openExport, rawBody, seedBigCompany } from '../support/export-stream';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { rateLimitOf, retryAfterOf } from '../support/rate-limit-headers';
import { createTestApp, eventually, lockWaiters, ownerDataSource, serverIdle } from '../support/test-app';

/** An app listening on a port (the slow readers are real sockets), its metrics scraped on another. */
async function listening(env: NodeJS.ProcessEnv) {
  const app = await createTestApp({ env: { EXPORT_IDLE_SECONDS: '600', ...env } });
  await app.listen(0, '127.0.0.1');
  const metricsServer = await startMetricsServer(app.get(Metrics), 0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
  return {
    app,
    base,
    http: request(app.getHttpServer()),
    metric: async (name: string, labels: Record<string, string> = {}): Promise<number> => {
      const samples: Sample[] = parseExposition(await (await fetch(metricsUrl)).text());
      const found = samples.filter(
        (s) => s.name === `${METRIC_PREFIX}${name}` && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );
      return found.reduce((sum, s) => sum + s.value, 0);
    },
    close: async (server: Server = metricsServer) => {
      server.close();
      await app.close();
    },
  };
}

describe('GET /v1/export: its own connections and its bounds (#48)', () => {
  let db: DataSource;
  let bigA: Company;
  let bigB: Company;
  let clientA: TestClient;
  let clientB: TestClient;

  const auditRows = async (requestId: string) =>
    db.query<Array<{ status: number; query: { export?: { outcome: string } } }>>(
      `SELECT status, query FROM audit_events WHERE request_id = $1 ORDER BY occurred_at`,
      [requestId],
    );
  const endOf = async (res: IncomingMessage): Promise<string> => {
    const requestId = String(res.headers['x-request-id']);
    await eventually(async () => (await auditRows(requestId)).length === 2, 30_000);
    return (await auditRows(requestId))[1].query.export!.outcome;
  };

  beforeAll(async () => {
    db = await ownerDataSource();
    // Two companies each too big for the sockets' buffers: a paused reader holds its export open.
    [bigA, bigB] = await Promise.all([seedBigCompany(db), seedBigCompany(db)]);
    [clientA, clientB] = await Promise.all([bigA, bigB].map((c) => createClient(db, c, { scopes: [...ALL_SCOPES] })));
  }, 120_000);
  afterAll(() => db?.destroy());

  describe('slow readers hold every export connection (EXPORT_POOL_SIZE=4, DB_POOL_SIZE=4)', () => {
    // "At once" is well under the wait for a connection that refusing at once avoids: a list, a
    // token and a readiness probe took 1.3 s beside two CPU burners (the busy pass), so the bound
    // is twice that, and the connection wait twice the bound.
    const AT_ONCE_MS = 2_600;
    const CONNECT_TIMEOUT_MS = 2 * AT_ONCE_MS;
    let service: Awaited<ReturnType<typeof listening>>;
    beforeAll(async () => {
      service = await listening({
        DB_POOL_SIZE: '4',
        DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        EXPORT_POOL_SIZE: '4',
        EXPORT_CONCURRENCY: '2',
        RATE_LIMIT_EXPORT: '5/3600',
      });
    });
    afterAll(() => service?.close());

    it('[waits] another company still reads, gets tokens and readiness at once; its export is 429 with Retry-After without spending its export quota; HEAD answers headers only; the oldest snapshot is measured', async () => {
      const { http, base, metric } = service;
      const [tokenA, tokenB] = await Promise.all([tokenFor(http, clientA), tokenFor(http, clientB)]);
      const victim = await createCompany(db);
      const victimClient = await createClient(db, victim, { scopes: [...ALL_SCOPES] });
      const victimToken = await tokenFor(http, victimClient);
      const exportRemaining = (res: request.Response) => rateLimitOf(res).state.get('export')?.r;

      // Two slow readers per company (paused after their headers: the kernel's buffers fill, then nothing moves).
      const slow = [tokenA, tokenA, tokenB].map((t) => openExport(base, '/v1/export?types=meeting&include=transcript', t));
      for (const stream of slow) expect((await stream.headed).statusCode).toBe(200);
      // A's third: the company's slots are busy (a connection is still free): 429, the quota given back.
      const busyA = await http.get('/v1/export?types=meeting').set('Authorization', `Bearer ${tokenA}`);
      expectError(busyA, 429, 'RATE_LIMIT_EXCEEDED');
      expect(exportRemaining(busyA)).toBe(3);
      slow.push(openExport(base, '/v1/export?types=meeting&include=transcript', tokenB));
      expect((await slow[3].headed).statusCode).toBe(200);
      expect(await metric('db_pool_connections', { pool: 'export' })).toBeGreaterThan(0);

      // The request pool is untouched by the four exports: reads, tokens and readiness answer 200 at once.
      for (let round = 0; round < 3; round++) {
        const started = Date.now();
        const list = await http.get('/v1/meetings?limit=1').set('Authorization', `Bearer ${victimToken}`);
        const token = await requestToken(http, victimClient);
        const ready = await http.get('/health/ready');
        expect({ list: list.status, token: token.status, ready: ready.status }).toEqual({ list: 200, token: 200, ready: 200 });
        // Without its own pool, each waited DB_CONNECT_TIMEOUT_MS for a connection, then 503.
        expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
      }

      // Every export connection is taken: another company's export is refused at once, its quota unspent, again and again.
      for (let attempt = 0; attempt < 2; attempt++) {
        const started = Date.now();
        const busy = await http.get('/v1/export').set('Authorization', `Bearer ${victimToken}`);
        expectError(busy, 429, 'RATE_LIMIT_EXCEEDED');
        expect(retryAfterOf(busy)).toBeGreaterThan(0);
        expect(exportRemaining(busy)).toBe(5);
        expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
      }

      // HEAD: the GET's status and headers, no slot needed, nothing read, no quota, not audited as an export.
      const head = await http.head('/v1/export').set('Authorization', `Bearer ${victimToken}`);
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toMatch(/^application\/x-ndjson/);
      expect(head.headers['feed-cursor']).toBeUndefined();
      expect(exportRemaining(head)).toBe(5);
      const headId = String(head.headers['x-request-id']);
      await eventually(async () => (await auditRows(headId)).length === 1, 30_000);
      expect((await auditRows(headId))[0].query.export).toBeUndefined();
      expect(await metric('export_oldest_snapshot_seconds')).toBeGreaterThan(0);

      // The readers go away: their connections come back, and the victim's export runs, spending one export.
      for (const stream of slow) (await stream.headed).destroy();
      for (const stream of slow) expect(await endOf(await stream.headed)).toBe('client_closed');
      await eventually(async () => (await metric('export_oldest_snapshot_seconds')) === 0, 30_000);
      const done = await http.get('/v1/export').set('Authorization', `Bearer ${victimToken}`).buffer(true).parse(rawBody);
      expect(done.status).toBe(200);
      expect(linesOf(done.body as Buffer).pop()).toMatchObject({ object: 'export' });
      expect(exportRemaining(done)).toBe(4);
    }, 120_000);
  });

  describe('EXPORT_MAX_SECONDS=2', () => {
    let service: Awaited<ReturnType<typeof listening>>;
    beforeAll(async () => {
      service = await listening({ EXPORT_MAX_SECONDS: '2', EXPORT_MIN_BYTES_PER_MINUTE: '0' });
    });
    afterAll(() => service?.close());

    it('[waits] a stream still running at the limit is cut without its trailer, audited and counted as max_duration, and resumes with after=', async () => {
      const { http, base, metric } = service;
      const token = await tokenFor(http, clientA);
      const stream = openExport(base, '/v1/export?types=meeting&include=transcript', token);
      const res = await stream.headed;
      expect(res.statusCode).toBe(200);
      expect(await endOf(res)).toBe('max_duration');
      stream.resume();
      const { body } = await stream.ended;
      expect(body.toString('utf8')).not.toContain('"object":"export"');
      expect(await metric('exports_ended_total', { outcome: 'max_duration' })).toBe(1);
      // The client resumes after the last line it stored: the next meeting comes first (the resumed
      // stream is read only that far; it has its own 2 s, too short to read it all on a busy machine).
      const received = completeLinesOf(body).map((l) => l.id as string);
      const [{ next }] = await db.query<Array<{ next: string }>>(
        `SELECT min(public_id COLLATE "C") AS next FROM recordings WHERE company_id = $1 AND kind = 'meeting' AND public_id COLLATE "C" > $2`,
        [bigA.id, received[received.length - 1]],
      );
      const resumed = openExport(base, `/v1/export?types=meeting&after=${received[received.length - 1]}`, token);
      expect(completeLinesOf(await resumed.readLines(1, 30_000))[0].id).toBe(next);
      (await resumed.headed).destroy();
    }, 60_000);
  });

  describe('EXPORT_MIN_BYTES_PER_MINUTE=6000000 over windows of EXPORT_RATE_WINDOW_SECONDS=1 (100 kB a second)', () => {
    let service: Awaited<ReturnType<typeof listening>>;
    beforeAll(async () => {
      service = await listening({ EXPORT_MIN_BYTES_PER_MINUTE: '6000000', EXPORT_RATE_WINDOW_SECONDS: '1' });
    });
    afterAll(() => service?.close());

    it('[waits] a reader that stops taking bytes is cut as too_slow after its first window, without its trailer; a reader that keeps up completes', async () => {
      const { http, base, metric } = service;
      const token = await tokenFor(http, clientB);
      const stream = openExport(base, '/v1/export?types=meeting&include=transcript', token);
      const res = await stream.headed;
      expect(await endOf(res)).toBe('too_slow');
      stream.resume();
      const { body } = await stream.ended;
      expect(body.toString('utf8')).not.toContain('"object":"export"');
      expect(await metric('exports_ended_total', { outcome: 'too_slow' })).toBe(1);
      const whole = await http
        .get('/v1/export?types=meeting&include=transcript')
        .set('Authorization', `Bearer ${token}`)
        .buffer(true)
        .parse(rawBody);
      expect(linesOf(whole.body as Buffer).pop()).toMatchObject({ object: 'export', records: { meeting: 6000 } });
    }, 60_000);
  });

  describe('a client gone before its stream began', () => {
    it('[waits] an export whose client left while its audit row was being written ends as client_closed at once, its connection given back', async () => {
      const service = await listening({ EXPORT_POOL_SIZE: '2' });
      const pool = service.app.get(ExportPool);
      try {
        const token = await tokenFor(service.http, clientA);
        const closedBefore = await service.metric('exports_ended_total', { outcome: 'client_closed' });
        // The audit row before the first byte waits on a lock the test holds: the client leaves meanwhile.
        const lock = db.createQueryRunner();
        await lock.connect();
        await lock.startTransaction();
        await lock.query('LOCK TABLE audit_events IN ACCESS EXCLUSIVE MODE');
        try {
          const req = httpGet(`${service.base}/v1/export?types=meeting`, { headers: { Authorization: `Bearer ${token}` } });
          req.on('error', () => undefined);
          await eventually(async () => (await lockWaiters(db, 'audit_events')) >= 1 && pool.inUse === 1, 10_000);
          req.destroy();
          await eventually(() => serverIdle(service.app.getHttpServer()), 10_000);
        } finally {
          await lock.commitTransaction();
          await lock.release();
        }
        // Not after EXPORT_IDLE_SECONDS (600 here) of writes that never drain.
        await eventually(async () => pool.inUse === 0, 10_000);
        expect(await service.metric('exports_ended_total', { outcome: 'client_closed' })).toBe(closedBefore + 1);
      } finally {
        await service.close();
      }
    });
  });
});
