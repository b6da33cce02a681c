import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { clientsAdmin, createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { explainSkip, RedisServer, redisMode, startRedisServer } from '../support/redis';
import { processToken, ServiceProcess, startServiceProcess } from '../support/service-process';
import { ownerDataSource } from '../support/test-app';

const CLIENT_QUOTA = 12;

/**
 * Several replicas, shown: three processes of the service on one PostgreSQL and one Redis,
 * behind a round-robin proxy played by this test (each request to the next instance, as a
 * Kubernetes Service's connections spread). What must be global is: the rate limits (counted in
 * Redis), revocation (read from PostgreSQL on every request), and cursors (sealed with the
 * shared CURSOR_SECRET, positions in the data, not in a process).
 */
const mode = redisMode();
if (mode === 'none') explainSkip('the three-instance test (the rate limits are shared through Redis)');
const withRedis = mode === 'none' ? describe.skip : describe;

withRedis('three instances behind a round-robin proxy', () => {
  let db: DataSource;
  let redis: RedisServer | undefined;
  let instances: ServiceProcess[] = [];
  let proxy: Server;
  let base: string;
  /** Which instance served each proxied request, in order. */
  const servedBy: number[] = [];

  beforeAll(async () => {
    db = await ownerDataSource();
    const redisUrl = mode === 'server' ? (redis = await startRedisServer()).url : process.env.REDIS_URL!;
    instances = await Promise.all(
      [0, 1, 2].map(() => startServiceProcess({ REDIS_URL: redisUrl, RATE_LIMIT_CLIENT: `${CLIENT_QUOTA}/60` })),
    );
    let next = 0;
    proxy = createServer((req, res) => {
      const index = next++ % instances.length;
      servedBy.push(index);
      const upstream = httpRequest(
        { host: '127.0.0.1', port: instances[index].port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    proxy?.close();
    await Promise.all(instances.map((i) => i.stop()));
    await redis?.stop();
    await db?.destroy();
  });

  /** A fresh client (its own rate-limit budget) of a company with `meetings` meetings, and a token through the proxy. */
  async function caller(meetings = 0) {
    const company = await createCompany(db);
    const factory = new RecordingsFactory(db, company.id);
    if (meetings) await factory.bulk('meeting', meetings, await factory.user(), new Date('2026-03-01T00:00:00Z'));
    const client = await createClient(db, company);
    return { client, token: await processToken(base, client) };
  }
  const get = (path: string, token: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('counts one client’s quota across the instances: the request past it is refused wherever it lands', async () => {
    const { token } = await caller();
    const from = servedBy.length;
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_QUOTA; i++) statuses.push((await get('/v1/context', token)).status);
    expect(statuses).toEqual(Array(CLIENT_QUOTA).fill(200));
    expect(new Set(servedBy.slice(from)).size).toBe(3);
    // Three more, one on each instance: each refused, with the client policy's state.
    for (let i = 0; i < 3; i++) {
      const res = await get('/v1/context', token);
      expect(res.status).toBe(429);
      expect(res.headers.get('ratelimit')).toMatch(/"client";r=0/);
    }
    expect(new Set(servedBy.slice(-3)).size).toBe(3);
  });

  it('walks a collection page by page on alternating instances: every record once, none skipped', async () => {
    const { token } = await caller(25);
    const seen: string[] = [];
    let cursor: string | null = null;
    const served: number[] = [];
    do {
      const res = await get(`/v1/meetings?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
      served.push(servedBy[servedBy.length - 1]);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Array<{ id: string }>; pagination: { next_cursor: string | null } };
      seen.push(...body.data.map((m) => m.id));
      cursor = body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    // Consecutive pages were served by different instances.
    expect(served.every((s, i) => i === 0 || s !== served[i - 1])).toBe(true);
  });

  it('revokes everywhere at once: after the admin revokes a client, its next request on every instance is 401', async () => {
    const { client, token } = await caller();
    for (let i = 0; i < 3; i++) expect((await get('/v1/context', token)).status).toBe(200);
    await clientsAdmin(db).setStatus(client.clientId, 'revoked');
    const after: Array<{ status: number; instance: number }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await get('/v1/context', token);
      after.push({ status: res.status, instance: servedBy[servedBy.length - 1] });
    }
    expect(after.map((a) => a.status)).toEqual([401, 401, 401]);
    expect(new Set(after.map((a) => a.instance)).size).toBe(3);
  });
});
