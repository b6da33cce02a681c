import { MemoryRateLimitStore } from './memory-rate-limit-store';

describe('MemoryRateLimitStore', () => {
  let now: number;
  let store: MemoryRateLimitStore;
  beforeEach(() => {
    now = 1_000;
    store = new MemoryRateLimitStore(() => now);
  });
  afterEach(() => store.onModuleDestroy());

  const a = { key: 'a', limit: 2, windowMs: 10_000 };
  const b = { key: 'b', limit: 5, windowMs: 60_000 };

  it('counts a hit on every counter while each is under its limit', async () => {
    expect(await store.consume([a, b])).toEqual({
      allowed: true,
      counters: [
        { hits: 1, resetMs: 10_000 },
        { hits: 1, resetMs: 60_000 },
      ],
    });
    now += 4_000;
    expect(await store.consume([a, b])).toEqual({
      allowed: true,
      counters: [
        { hits: 2, resetMs: 6_000 },
        { hits: 2, resetMs: 56_000 },
      ],
    });
  });

  it('refuses without counting on any counter once one is at its limit', async () => {
    await store.consume([a, b]);
    await store.consume([a, b]);
    expect(await store.consume([a, b])).toEqual({
      allowed: false,
      counters: [
        { hits: 2, resetMs: 10_000 },
        { hits: 2, resetMs: 60_000 },
      ],
    });
    expect(await store.peek([b])).toEqual([{ hits: 2, resetMs: 60_000 }]);
    expect((await store.consume([b])).counters).toEqual([{ hits: 3, resetMs: 60_000 }]);
  });

  it('starts a new window when the last one has ended', async () => {
    await store.consume([a]);
    await store.consume([a]);
    now += 9_999;
    expect((await store.consume([a])).allowed).toBe(false);
    now += 1;
    expect(await store.consume([a])).toEqual({ allowed: true, counters: [{ hits: 1, resetMs: 10_000 }] });
  });

  it('refunds a hit of the running window only: never below 0, never into a window that ended', async () => {
    await store.consume([a, b]);
    await store.consume([a, b]);
    now += 1_000;
    expect(await store.refund([a])).toEqual([{ hits: 1, resetMs: 9_000 }]);
    expect((await store.consume([a])).allowed).toBe(true);
    now += 9_000;
    expect(await store.refund([a, b])).toEqual([
      { hits: 0, resetMs: 10_000 },
      { hits: 1, resetMs: 50_000 },
    ]);
    expect(await store.refund([b, b])).toEqual([
      { hits: 0, resetMs: 50_000 },
      { hits: 0, resetMs: 50_000 },
    ]);
  });

  it('peeks without counting: an unknown counter has no hits and a whole window ahead', async () => {
    expect(await store.peek([a])).toEqual([{ hits: 0, resetMs: 10_000 }]);
    expect(await store.peek([a])).toEqual([{ hits: 0, resetMs: 10_000 }]);
    expect(store.size).toBe(0);
  });

  it('sweeps ended windows, so memory follows the active partitions', async () => {
    for (let i = 0; i < 100; i++) await store.consume([{ key: `k${i}`, limit: 1, windowMs: 1_000 + i }]);
    expect(store.size).toBe(100);
    now += 1_050;
    store.sweep();
    expect(store.size).toBe(49); // windows of 1000..1050 ms ended; 1051..1099 ms remain
  });

  it('counts a costly request by its cost; admits it while every counter has a unit left, and refuses at the limit', async () => {
    const c = { key: 'c', limit: 10, windowMs: 60_000 };
    expect(await store.consume([{ ...c, cost: 4 }, b])).toEqual({
      allowed: true,
      counters: [
        { hits: 4, resetMs: 60_000 },
        { hits: 1, resetMs: 60_000 },
      ],
    });
    expect((await store.consume([{ ...c, cost: 4 }])).counters).toEqual([{ hits: 8, resetMs: 60_000 }]);
    // Two units left: admitted, and counted whole.
    expect((await store.consume([{ ...c, cost: 4 }])).counters).toEqual([{ hits: 12, resetMs: 60_000 }]);
    expect(await store.consume([c, b])).toEqual({
      allowed: false,
      counters: [
        { hits: 12, resetMs: 60_000 },
        { hits: 1, resetMs: 60_000 },
      ],
    });
  });
});
