import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Every metric's name starts with this (Prometheus: one namespace per application). */
export const METRIC_PREFIX = 'conversation_api_';

/** Seconds: from a probe-fast answer to a page stuck behind a slow database. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds a connection is waited for: mostly none, then the pool's queue. */
const WAIT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];
/** Rows in one audit INSERT (at most 500, see audit-trail.ts). */
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500];

/** Label values a route may carry when it matched none: never the raw path (unbounded). */
export const UNMATCHED_ROUTE = 'unmatched';

/** How long a reading that queries something (a database, Redis) is kept for the scrapes that follow. */
export const SCRAPE_CACHE_MS = 1000;

/**
 * `read`, with what it answers asynchronously (a dependency check, a query for a lag or a
 * backlog) kept for SCRAPE_CACHE_MS: scrapes arriving meanwhile, together or one after another,
 * share one reading, so a flood of scrapes costs the databases one round a second. Readings of
 * the process's own state (synchronous) stay live. A reading that fails is not kept.
 */
function keptBriefly(read: Reading): Reading {
  let kept: { at: number; value: Promise<number | undefined> } | undefined;
  return () => {
    const now = Date.now();
    if (kept && now - kept.at < SCRAPE_CACHE_MS) return kept.value;
    const value = read();
    if (!(value instanceof Promise)) return value;
    const entry = { at: now, value };
    kept = entry;
    value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return value;
  };
}

/** What pg's Pool tells of itself. */
export interface PoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Seconds since `started` (a `process.hrtime.bigint()`): what every duration metric observes. */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The label names a set of readings uses, for a metric read at scrape time. */
function labelNamesOf(readings: Array<{ labels?: Record<string, string> }>): string[] {
  return [...new Set(readings.flatMap((r) => Object.keys(r.labels ?? {})))];
}

/** What a gauge reads at scrape time. Returning undefined leaves the gauge without a value. */
type Reading = () => number | undefined | Promise<number | undefined>;

/**
 * The service's metrics, in Prometheus's text format on METRICS_PORT (docs/DEPLOYMENT.md).
 * One registry per process (the API, the worker), so tests can build several applications in
 * one process. Labels are small closed sets: route templates (never paths, ids or query values),
 * status codes, policy names, pool and dependency names.
 *
 * With `enabled` false (METRICS_PORT=off), every recording method returns at once: what a
 * request costs for metrics is what the bench compares against this.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly rateLimits: Counter<'policy' | 'decision'>;
  private readonly auditBatch: Histogram<string>;
  private readonly auditCommit: Histogram<'outcome'>;
  private readonly poolWait: Histogram<'pool'>;
  private readonly pools = new Map<string, PoolLike>();

  constructor(readonly enabled: boolean) {
    const registers = [this.registry];
    if (enabled) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.requests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time from the request to the end of its answer, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rateLimits = new Counter({
      name: `${METRIC_PREFIX}rate_limit_decisions_total`,
      help: 'Rate-limit decisions per policy: allowed (counted) or refused (429).',
      labelNames: ['policy', 'decision'],
      registers,
    });
    this.auditBatch = new Histogram({
      name: `${METRIC_PREFIX}audit_batch_rows`,
      help: 'Rows per audit INSERT (group commit).',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.auditCommit = new Histogram({
      name: `${METRIC_PREFIX}audit_commit_duration_seconds`,
      help: 'Time to write and commit one audit batch, by outcome (committed or failed).',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.poolWait = new Histogram({
      name: `${METRIC_PREFIX}db_pool_wait_seconds`,
      help: 'Time a request waited for a database connection, by pool.',
      labelNames: ['pool'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    const pools = this.pools;
    new Gauge({
      name: `${METRIC_PREFIX}db_pool_connections`,
      help: 'Connections of a database pool, by state (busy or idle).',
      labelNames: ['pool', 'state'],
      registers,
      collect() {
        this.reset();
        for (const [pool, p] of pools) {
          this.set({ pool, state: 'busy' }, p.totalCount - p.idleCount);
          this.set({ pool, state: 'idle' }, p.idleCount);
        }
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}db_pool_waiting_requests`,
      help: 'Requests waiting for a connection of a database pool.',
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        for (const [pool, p] of pools) this.set({ pool }, p.waitingCount);
      },
    });
  }

  /** Reports a connection pool's size, use and queue as `db_pool_*{pool}`. */
  watchPool(name: string, pool: PoolLike): void {
    this.pools.set(name, pool);
  }

  /** One answered HTTP request. `route` is the template (`/v1/meetings/:meeting_id`). */
  request(method: string, route: string, status: number, seconds: number): void {
    if (!this.enabled) return;
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  rateLimit(policy: string, allowed: boolean): void {
    if (this.enabled) this.rateLimits.inc({ policy, decision: allowed ? 'allowed' : 'refused' });
  }

  auditWritten(rows: number, seconds: number, committed: boolean): void {
    if (!this.enabled) return;
    if (committed) this.auditBatch.observe(rows);
    this.auditCommit.observe({ outcome: committed ? 'committed' : 'failed' }, seconds);
  }

  poolWaited(pool: string, seconds: number): void {
    if (this.enabled) this.poolWait.observe({ pool }, seconds);
  }

  /**
   * A gauge read when Prometheus scrapes, one series per label set. `read` may query the
   * database: it runs once per scrape, and a failing read leaves the series out of that scrape.
   */
  gauge(name: string, help: string, readings: Array<{ labels?: Record<string, string>; read: Reading }>): void {
    readings = readings.map(({ labels, read }) => ({ labels, read: keptBriefly(read) }));
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: labelNamesOf(readings),
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          readings.map(async ({ labels, read }) => {
            try {
              const value = await read();
              if (value !== undefined) this.set(labels ?? {}, value);
            } catch {
              // Left out of this scrape: the availability gauges say which dependency is down.
            }
          }),
        );
      },
    });
  }

  /** A counter whose totals a component keeps itself (`read` returns them), read at scrape time. */
  counter(name: string, help: string, readings: Array<{ labels?: Record<string, string>; read: () => number }>): void {
    new Counter({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: labelNamesOf(readings),
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { labels, read } of readings) this.inc(labels ?? {}, read());
      },
    });
  }

  /** The text Prometheus scrapes. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
