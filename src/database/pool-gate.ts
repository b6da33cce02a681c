import { Metrics } from '../metrics/metrics';
import { companyShare, FairGate } from './fair-gate';

/**
 * The lane of the token endpoint: one for every token request, whoever asks. Its company is not
 * known before the client is looked up, and a lane per claimed client id would let a caller open
 * as many lanes (each with a turn in the round robin) as ids it makes up; one lane bounds all
 * token requests together to a company's share, and they are short (one indexed lookup).
 */
export const TOKEN_LANE = 'token';

/**
 * The fair gate in front of the API's request pool (DB_POOL_SIZE): every tenant transaction
 * and token lookup takes a turn in it before it takes a connection. Tenants together hold at
 * most `DB_POOL_SIZE - 1` connections: the last one stays out of their reach for what must
 * answer while every tenant is busy (the readiness probe's ping, the metrics' dependency check),
 * which take the pool directly. One company holds at most its share (`DB_POOL_COMPANY_SHARE`
 * of DB_POOL_SIZE, rounded up); a turn waited for longer than the connection timeout fails as
 * the pool does (503).
 */
export class PoolGate {
  readonly gate: FairGate;

  constructor(
    poolSize: number,
    shareFraction: number,
    readonly timeoutMs: number,
    metrics: Metrics,
  ) {
    const capacity = Math.max(1, poolSize - 1);
    this.gate = new FairGate(capacity, Math.min(capacity, companyShare(poolSize, shareFraction)));
    const gate = this.gate;
    metrics.gauge('db_pool_gate_waiting_requests', 'Requests waiting for their turn at the API pool’s fair gate (every company together).', [
      { read: () => gate.stats().waiting },
    ]);
    metrics.gauge('db_pool_gate_companies_at_share', 'Companies (and the token lane) holding their whole share of the API pool now.', [
      { read: () => gate.stats().lanesAtShare },
    ]);
    metrics.counter('db_pool_gate_timeouts_total', 'Requests that gave up waiting for their turn at the API pool’s fair gate (answered 503).', [
      { read: () => gate.stats().timedOut },
    ]);
  }

  /** A passthrough for the schema owner's side (worker, CLI): no tenants compete there for a request pool. */
  static open(timeoutMs: number, metrics: Metrics): PoolGate {
    return new PoolGate(Number.MAX_SAFE_INTEGER, 1, timeoutMs, metrics);
  }

  /** A turn for `lane`: resolves to its release (idempotent); rejects as an exhausted pool does. */
  turn(lane: string, signal?: AbortSignal): Promise<() => void> {
    return this.gate.acquire(lane, this.timeoutMs, signal);
  }

  /** Runs `work` in a turn of `lane`. */
  run<T>(lane: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.gate.run(lane, this.timeoutMs, work, signal);
  }
}
