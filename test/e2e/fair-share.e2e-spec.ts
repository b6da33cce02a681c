import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import request from 'supertest';
import { DataSource, QueryRunner } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { PoolGate } from '../../src/database/pool-gate';
import { createClient, requestToken } from '../support/credentials';
import { createTenant, Tenant } from '../support/tenant';
import { createTestApp, eventually, lockWaiters, ownerDataSource, serverIdle } from '../support/test-app';

/** The API pool the app's tenant transactions draw from. */
const apiPool = (app: NestExpressApplication): Pool => (app.get(DataSource).driver as PostgresDriver).master as Pool;

/** Backends whose statement waits for the chat table's lock (held by the test). */
const waitingOnLock = (owner: DataSource) => lockWaiters(owner, 'chat_conversations');

/** An answer with how long it took. */
async function timed(test: request.Test): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await test;
  return { status: res.status, ms: Date.now() - started };
}

describe('the request pool shared fairly among companies (DB_POOL_COMPANY_SHARE)', () => {
  const POOL_SIZE = 4;
  const CONNECT_TIMEOUT_MS = 8000;
  const HEAVY = 20;
  let owner: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    owner = await ownerDataSource();
    app = await createTestApp({
      env: {
        DB_POOL_SIZE: String(POOL_SIZE),
        DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DB_STATEMENT_TIMEOUT_MS: '20000',
        HEAVY_REQUESTS_MAX: '2',
      },
    });
    http = request(app.getHttpServer());
    [a, b] = await Promise.all([createTenant(owner, http, ['chat.read']), createTenant(owner, http, ['meetings.read'])]);
  });
  afterAll(() => Promise.all([app.close(), owner.destroy()]));

  it('[waits] a company with twenty requests stuck in the database holds its share only: another company’s read, a token request and readiness answer at once, and all twenty answer 200 after', async () => {
    // Company A's twenty chat pages block inside the database on a lock the test holds (a heavy
    // statement, made deterministic): without the share they take the whole pool.
    const lock: QueryRunner = owner.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query('LOCK TABLE chat_conversations IN ACCESS EXCLUSIVE MODE');
    let heavy: Array<Promise<{ status: number; ms: number }>> = [];
    try {
      heavy = Array.from({ length: HEAVY }, () => timed(http.get('/v1/chat?limit=1').set('Authorization', `Bearer ${a.token}`)));
      const gate = app.get(PoolGate).gate;
      // A holds what it may (its share: 2 of 4; the rest of its requests queue, in the gate or the pool).
      await eventually(
        async () => (await waitingOnLock(owner)) >= 2 && gate.stats().waiting + apiPool(app).waitingCount >= HEAVY - 4,
        10_000,
      );

      const read = await timed(http.get('/v1/meetings?limit=1').set('Authorization', `Bearer ${b.token}`));
      expect(read.status).toBe(200);
      expect(read.ms).toBeLessThan(CONNECT_TIMEOUT_MS / 2);
      const token = await timed(requestToken(http, await createClient(owner, b.company)));
      expect(token.status).toBe(200);
      expect(token.ms).toBeLessThan(CONNECT_TIMEOUT_MS / 2);
      await http.get('/health/ready').expect(200);
      // A never held more than its share, B's request did not wait behind A's queue.
      expect(await waitingOnLock(owner)).toBe(2);
      expect(gate.stats()).toMatchObject({ lanesAtShare: 1 });
    } finally {
      await lock.commitTransaction();
      await lock.release();
    }
    // A's requests queued behind each other, not given up: each answers once the lock is gone.
    const answers = await Promise.all(heavy);
    expect(answers.map((r) => r.status)).toEqual(Array(HEAVY).fill(200));
    expect(app.get(PoolGate).gate.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('[waits] a client gone while its transaction opened, its request then refused by a later guard: the connection and the turn are given back', async () => {
    // The interleaving: the turn is granted and the transaction opening (the client lookup waits
    // on a lock the test holds) when the client goes away; the lookup then ends, and the scopes
    // guard refuses the request (403: the token cannot read chat). The close came before the
    // strategy could listen for it: without the check, nothing ever ended that transaction.
    await app.listen(0, '127.0.0.1');
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const gate = app.get(PoolGate).gate;
    const lock: QueryRunner = owner.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query('LOCK TABLE api_clients IN ACCESS EXCLUSIVE MODE');
    try {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/chat?limit=1', headers: { Authorization: `Bearer ${b.token}` } });
      req.on('error', () => undefined);
      req.end();
      await eventually(async () => (await lockWaiters(owner, 'api_clients')) >= 1, 10_000);
      expect(gate.stats().held).toBe(1);
      req.destroy();
      // The server saw the socket close.
      await eventually(() => serverIdle(app.getHttpServer()), 10_000);
    } finally {
      await lock.commitTransaction();
      await lock.release();
    }
    await eventually(async () => gate.stats().held === 0, 10_000);
    const idle: Array<{ n: number }> = await owner.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND application_name = 'conversation-read-api'`,
    );
    expect(idle[0].n).toBe(0);
  });

  it('[waits] heavy requests (a transcript embedded) run one at a time per company, HEAVY_REQUESTS_MAX in all: a company’s three queue behind each other, another company’s heavy one and plain reads run beside them', async () => {
    // Each heavy request blocks inside the database on a lock the test holds on the transcripts
    // (a page of 1,000-utterance transcripts keeping a core busy, made deterministic).
    const [heavyA, heavyB] = await Promise.all([
      createTenant(owner, http, ['meetings.read', 'transcriptions.read']),
      createTenant(owner, http, ['meetings.read', 'transcriptions.read']),
    ]);
    for (const t of [heavyA, heavyB]) await t.people.recording('meeting', { owner: t.seller, transcript: 'enhanced' });
    const pool = app.get(PoolGate);
    const onTranscripts = () => lockWaiters(owner, 'transcripts');
    const lock: QueryRunner = owner.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query('LOCK TABLE transcripts IN ACCESS EXCLUSIVE MODE');
    let heavy: Array<Promise<{ status: number; ms: number }>> = [];
    try {
      const page = (t: Tenant) => timed(http.get('/v1/meetings?limit=10&include=transcript').set('Authorization', `Bearer ${t.token}`));
      heavy = [page(heavyA), page(heavyA), page(heavyA), page(heavyB)];
      // One of A's and B's in the database, A's two others waiting for A's heavy turn.
      await eventually(async () => (await onTranscripts()) === 2 && pool.heavy.stats().waiting === 2, 10_000);
      expect(pool.heavy.stats()).toMatchObject({ held: 2, waiting: 2 });
      // Plain requests are not heavy: A's own and B's plain reads answer at once.
      for (const t of [heavyA, b]) {
        const read = await timed(http.get('/v1/meetings?limit=1').set('Authorization', `Bearer ${t.token}`));
        expect(read.status).toBe(200);
      }
      expect(await onTranscripts()).toBe(2);
    } finally {
      await lock.commitTransaction();
      await lock.release();
    }
    const answers = await Promise.all(heavy);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(pool.heavy.stats()).toMatchObject({ held: 0, waiting: 0 });
  });
});
