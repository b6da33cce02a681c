import { OnModuleDestroy } from '@nestjs/common';
import { Consumption, Counter, Demand, RateLimitStore } from './rate-limit-store';

interface Window {
  hits: number;
  /** On the monotonic clock: the wall clock may jump, windows must not. */
  endsAt: number;
}

const SWEEP_INTERVAL_MS = 30_000;

/**
 * Counters in this process (no REDIS_URL): exact for one instance, per instance when several
 * run. Single-threaded JavaScript makes `consume` atomic without locks. Ended windows are
 * swept periodically, so memory follows the number of active partitions.
 */
export class MemoryRateLimitStore extends RateLimitStore implements OnModuleDestroy {
  readonly shared = false;
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  constructor(private readonly now: () => number = () => performance.now()) {
    super();
  }

  consume(demands: readonly Demand[]): Promise<Consumption> {
    const now = this.now();
    const current = demands.map((d) => this.current(d, now));
    const allowed = current.every((counter, i) => counter.hits < demands[i].limit);
    if (!allowed) return Promise.resolve({ allowed, counters: current });
    const counters = demands.map((demand, i) => {
      const window = this.windows.get(demand.key);
      const cost = demand.cost ?? 1;
      if (window && window.endsAt > now) window.hits += cost;
      else this.windows.set(demand.key, { hits: cost, endsAt: now + demand.windowMs });
      return { hits: current[i].hits + cost, resetMs: current[i].resetMs };
    });
    return Promise.resolve({ allowed, counters });
  }

  peek(demands: readonly Demand[]): Promise<Counter[]> {
    const now = this.now();
    return Promise.resolve(demands.map((d) => this.current(d, now)));
  }

  refund(demands: readonly Demand[]): Promise<Counter[]> {
    const now = this.now();
    return Promise.resolve(
      demands.map((demand) => {
        const window = this.windows.get(demand.key);
        if (window && window.endsAt > now && window.hits > 0) window.hits--;
        return this.current(demand, now);
      }),
    );
  }

  check(): Promise<void> {
    return Promise.resolve();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  /** Number of windows held (tests: memory stays bounded). */
  get size(): number {
    return this.windows.size;
  }

  sweep(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  private current(demand: Demand, now: number): Counter {
    const window = this.windows.get(demand.key);
    if (!window || window.endsAt <= now) return { hits: 0, resetMs: demand.windowMs };
    return { hits: window.hits, resetMs: window.endsAt - now };
  }
}
