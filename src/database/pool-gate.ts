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
  /**
   * Heavy requests (HEAVY_UNITS or more of cost: a transcript or messages embedded) take a turn
   * here first, before the pool's, as do filtered audit-trail reads (AuditEventsRepository): one per
   * company and HEAVY_REQUESTS_MAX in all (default 1: on the bench's two cores, two at once kept
   * both of PostgreSQL's busy and the measured company's p99 at six times its quiet one; one
   * brought it to about three). A connection
   * share bounds connections, not work: one connection rendering pages of 1,000-utterance
   * transcripts keeps a core of PostgreSQL busy, and a company's share of five such connections
   * took the whole machine from everyone (bench:neighbours). A heavy request waits for its turn
   * up to `heavyWaitMs` (the time one statement may run), then fails as the pool does (503).
   */
  readonly heavy: FairGate;

  constructor(
    settings: { poolSize: number; companyShare: number; heavyRequestsMax: number },
    readonly timeoutMs: number,
    readonly heavyWaitMs: number,
    metrics: Metrics,
  ) {
    const capacity = Math.max(1, settings.poolSize - 1);
    this.gate = new FairGate(capacity, Math.min(capacity, companyShare(settings.poolSize, settings.companyShare)));
    this.heavy = new FairGate(settings.heavyRequestsMax, 1);
    const gate = this.gate;
    const heavy = this.heavy;
    metrics.gauge(
      'db_pool_gate_heavy_requests',
      'Heavy requests (an include part of 10 units or more) running now, and waiting for their turn.',
      [
        { labels: { state: 'running' }, read: () => heavy.stats().held },
        { labels: { state: 'waiting' }, read: () => heavy.stats().waiting },
      ],
    );
    metrics.gauge(
      'db_pool_gate_waiting_requests',
      'Requests waiting for their turn at the API pool’s fair gate (every company together).',
      [{ read: () => gate.stats().waiting }],
    );
    metrics.gauge('db_pool_gate_companies_at_share', 'Companies (and the token lane) holding their whole share of the API pool now.', [
      { read: () => gate.stats().lanesAtShare },
    ]);
    metrics.counter(
      'db_pool_gate_timeouts_total',
      'Requests that gave up waiting for their turn at the API pool’s fair gate (answered 503).',
      [{ read: () => gate.stats().timedOut }],
    );
  }

  /** A passthrough for the schema owner's side (worker, CLI): no tenants compete there for a request pool. */
  static open(timeoutMs: number, metrics: Metrics): PoolGate {
    return new PoolGate(
      { poolSize: Number.MAX_SAFE_INTEGER, companyShare: 1, heavyRequestsMax: Number.MAX_SAFE_INTEGER },
      timeoutMs,
      timeoutMs,
      metrics,
    );
  }

  /**
   * A turn for `lane` (a heavy request's: its heavy turn first, then the pool's): resolves to its
   * release (idempotent, both turns); rejects as an exhausted pool does, holding nothing.
   */
  async turn(lane: string, signal?: AbortSignal, heavy = false): Promise<() => void> {
    if (!heavy) return this.gate.acquire(lane, this.timeoutMs, signal);
    const endHeavy = await this.heavy.acquire(lane, this.heavyWaitMs, signal);
    try {
      const endTurn = await this.gate.acquire(lane, this.timeoutMs, signal);
      return () => {
        endTurn();
        endHeavy();
      };
    } catch (error) {
      endHeavy();
      throw error;
    }
  }

  /** Runs `work` in a turn of `lane`. */
  run<T>(lane: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.gate.run(lane, this.timeoutMs, work, signal);
  }
}
