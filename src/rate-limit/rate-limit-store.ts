/**
 * One counter a request must pass: at most `limit` units per fixed window of `windowMs`; the
 * request counts `cost` units (1 unless said).
 */
export interface Demand {
  key: string;
  limit: number;
  windowMs: number;
  cost?: number;
}

/** A counter's window: hits counted so far and milliseconds until the window ends. */
export interface Counter {
  hits: number;
  resetMs: number;
}

/** The answer to one request: allowed (every counter took the hit) or refused (none did). */
export interface Consumption {
  allowed: boolean;
  /** One per demand, in order: after the hit when allowed, as they stand when refused. */
  counters: Counter[];
}

/**
 * Fixed-window counters. `consume` is all-or-nothing across a request's counters: a request
 * one policy refuses spends nothing of the others, so a client over its own quota cannot
 * drain its company's budget by retrying. A request is admitted while every counter has a unit
 * left, and then counts its whole cost (a counter may end past its limit by less than one
 * request's cost): a refusal always means a counter at its limit, as the `r=0` of the 429
 * says, and a costly request is never refused while a cheap one would be admitted. Implementations: in-process, or Redis (shared by
 * every instance). Errors mean the store is unavailable; the caller answers 503.
 */
export abstract class RateLimitStore {
  /** True when the counters are shared between instances (readiness then checks the store). */
  abstract readonly shared: boolean;

  abstract consume(demands: readonly Demand[]): Promise<Consumption>;

  /** The counters as they stand, without a hit (a counter with no window yet: 0 hits, a full window). */
  abstract peek(demands: readonly Demand[]): Promise<Counter[]>;

  /**
   * Takes back one hit from each counter whose window still runs (a request counted, then refused
   * for a reason that is not its quota): the counters as they stand after. A window that ended
   * meanwhile is left alone, so a refund never reaches into a later window's count.
   */
  abstract refund(demands: readonly Demand[]): Promise<Counter[]>;

  /** Resolves when the store answers; rejects otherwise (readiness). */
  abstract check(): Promise<void>;
}
