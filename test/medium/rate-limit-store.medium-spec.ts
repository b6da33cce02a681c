import { randomUUID } from 'node:crypto';
import { MemoryRateLimitStore } from '../../src/rate-limit/memory-rate-limit-store';
import { RateLimitStore } from '../../src/rate-limit/rate-limit-store';
import { RedisRateLimitStore } from '../../src/rate-limit/redis-rate-limit-store';
import { explainSkip, RedisServer, redisMode, startRedisServer } from '../support/redis';
import { sleep } from '../support/test-app';

const mode = redisMode();
if (mode === 'none') explainSkip('the Redis rate-limit store contract');

/** The same contract for both stores: what the guard relies on. */
function storeContract(name: string, open: () => Promise<{ store: RateLimitStore; close: () => Promise<void> }>) {
  describe(`${name} rate-limit store`, () => {
    let store: RateLimitStore;
    let close: () => Promise<void>;
    beforeAll(async () => ({ store, close } = await open()));
    afterAll(() => close());

    const demand = (limit: number, windowMs = 60_000) => ({ key: `test:${randomUUID()}`, limit, windowMs });

    it('counts hits up to the limit, then refuses', async () => {
      const d = demand(3);
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await store.consume([d]));
      expect(results.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
      expect(results.map((r) => r.counters[0].hits)).toEqual([1, 2, 3, 3, 3]);
      for (const r of results) expect(r.counters[0].resetMs).toBeGreaterThan(59_000);
    });

    it('is all-or-nothing across counters: a refusal spends none of them', async () => {
      const tight = demand(1);
      const loose = demand(10);
      expect((await store.consume([loose, tight])).allowed).toBe(true);
      const refused = await store.consume([loose, tight]);
      expect(refused.allowed).toBe(false);
      expect(refused.counters.map((c) => c.hits)).toEqual([1, 1]);
      expect((await store.peek([loose]))[0].hits).toBe(1);
    });

    it('peeks without counting', async () => {
      const d = demand(5, 30_000);
      expect(await store.peek([d])).toEqual([{ hits: 0, resetMs: 30_000 }]);
      await store.consume([d]);
      const [counter] = await store.peek([d]);
      expect(counter.hits).toBe(1);
      expect(counter.resetMs).toBeLessThanOrEqual(30_000);
    });

    it('refunds a hit in the running window (never below 0), and never revives an ended window', async () => {
      const d = demand(2, 400);
      await store.consume([d]);
      await store.consume([d]);
      expect((await store.consume([d])).allowed).toBe(false);
      const [back] = await store.refund([d]);
      expect(back.hits).toBe(1);
      expect(back.resetMs).toBeLessThanOrEqual(400);
      expect(await store.consume([d])).toMatchObject({ allowed: true, counters: [{ hits: 2 }] });
      await store.refund([d]);
      await store.refund([d]);
      expect((await store.refund([d]))[0].hits).toBe(0);
      const unknown = demand(3, 30_000);
      expect(await store.refund([unknown])).toEqual([{ hits: 0, resetMs: 30_000 }]);
      expect(await store.peek([unknown])).toEqual([{ hits: 0, resetMs: 30_000 }]);
      await store.consume([d]);
      await sleep(450);
      expect(await store.refund([d])).toEqual([{ hits: 0, resetMs: 400 }]);
    });

    it('ends a window after its length and starts a new one', async () => {
      const d = demand(1, 300);
      expect((await store.consume([d])).allowed).toBe(true);
      expect((await store.consume([d])).allowed).toBe(false);
      await sleep(350);
      expect(await store.consume([d])).toMatchObject({ allowed: true, counters: [{ hits: 1 }] });
    });

    it('never allows more than the limit under 200 concurrent requests', async () => {
      const d = demand(37);
      const results = await Promise.all(Array.from({ length: 200 }, () => store.consume([d])));
      expect(results.filter((r) => r.allowed)).toHaveLength(37);
      // Each allowed hit saw a distinct count: no two requests were counted as the same one.
      expect(new Set(results.filter((r) => r.allowed).map((r) => r.counters[0].hits)).size).toBe(37);
    });

    it('answers its readiness check', async () => {
      await expect(store.check()).resolves.toBeUndefined();
    });
  });
}

storeContract('in-process', async () => {
  const store = new MemoryRateLimitStore();
  return { store, close: async () => store.onModuleDestroy() };
});

if (mode !== 'none') {
  let server: RedisServer | undefined;
  const url = async () => (mode === 'server' ? (server = await startRedisServer()).url : process.env.REDIS_URL!);
  storeContract('Redis', async () => {
    const store = new RedisRateLimitStore(await url(), 500);
    await store.onModuleInit();
    return {
      store,
      close: async () => {
        store.onModuleDestroy();
        await server?.stop();
      },
    };
  });

  describe('Redis rate-limit store shared by two instances', () => {
    it('keeps one budget: two clients of one Redis never allow more than the limit together', async () => {
      const redis = mode === 'server' ? await startRedisServer() : undefined;
      const target = redis?.url ?? process.env.REDIS_URL!;
      const [one, two] = [new RedisRateLimitStore(target, 500), new RedisRateLimitStore(target, 500)];
      await Promise.all([one.onModuleInit(), two.onModuleInit()]);
      try {
        const d = { key: `test:${randomUUID()}`, limit: 50, windowMs: 60_000 };
        const results = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? one : two).consume([d])));
        expect(results.filter((r) => r.allowed)).toHaveLength(50);
        expect((await one.peek([d]))[0].hits).toBe(50);
      } finally {
        one.onModuleDestroy();
        two.onModuleDestroy();
        await redis?.stop();
      }
    });
  });
}
