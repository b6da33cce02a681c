import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { ApiError } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { Metrics, secondsSince } from '../metrics/metrics';
import { AuditEvent } from './audit-event';

/** Why a fail-closed write did not commit in time (or at all). */
export class AuditUnavailableError extends Error {}

interface Waiting {
  event: AuditEvent;
  done: (error?: Error) => void;
}

/** Rows per INSERT at most; concurrent batches at most (each holds one connection). */
const MAX_BATCH = 500;
const MAX_IN_FLIGHT = 4;

const INSERT = `INSERT INTO audit_events
  (occurred_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids, truncated, attempts)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::jsonb[], $9::jsonb[], $10::int[], $11::jsonb[], $12::boolean[], $13::int[])`;

/**
 * The audit trail, written with group commit: rows that arrive while a batch is being
 * written wait and go together in the next one, one multi-row INSERT (its own commit) per
 * batch. Under light load a batch is one row and nothing waits; under heavy load the number
 * of commits stays bounded by MAX_IN_FLIGHT, not by the number of requests.
 *
 * `record()` is fail-closed: it resolves only once the row is committed and rejects with
 * AuditUnavailableError on any failure or after AUDIT_TIMEOUT_MS. `recordBestEffort()` never
 * fails its caller: a lost row is counted and logged.
 */
@Injectable()
export class AuditTrail implements OnModuleDestroy {
  private readonly logger = new Logger('Audit');
  private readonly pool: Pool;
  private readonly timeoutMs: number;
  private readonly queueLimit: number;
  private pending: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly closing: Array<() => void> = [];
  /** Counters since start: rows committed, batches written, best-effort rows lost, fail-closed writes refused. */
  readonly stats = { written: 0, batches: 0, lost: 0, refused: 0 };

  constructor(
    urls: DatabaseUrls,
    config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.timeoutMs = config.auditTimeoutMs;
    this.queueLimit = config.auditQueueLimit;
    this.pool = new Pool({
      connectionString: urls.audit,
      max: MAX_IN_FLIGHT + 1,
      application_name: 'conversation-read-api-audit',
      connectionTimeoutMillis: this.timeoutMs,
      // A blocked INSERT (a locked table) is cancelled by the server, so it frees its
      // connection instead of piling up behind the lock.
      statement_timeout: this.timeoutMs,
      lock_timeout: this.timeoutMs,
      keepAlive: true,
    });
    // An idle connection that dies (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', (error) => this.logger.warn({ err: error.message }, 'audit connection lost'));
    metrics.watchPool('audit', this.pool);
    metrics.gauge('audit_queue_rows', 'Audit rows waiting for a batch.', [{ read: () => this.pending.length }]);
    metrics.gauge('audit_batches_in_flight', 'Audit batches being written.', [{ read: () => this.inFlight }]);
    metrics.counter(
      'audit_rows_total',
      'Audit rows since start, by outcome: written, lost (best effort, not written) or refused (fail-closed).',
      [
        { labels: { outcome: 'written' }, read: () => this.stats.written },
        { labels: { outcome: 'lost' }, read: () => this.stats.lost },
        { labels: { outcome: 'refused' }, read: () => this.stats.refused },
      ],
    );
  }

  /**
   * Resolves once the row is committed; rejects with AuditUnavailableError otherwise, within
   * AUDIT_TIMEOUT_MS, and at once when AUDIT_QUEUE_LIMIT rows already wait (a store slower than
   * the traffic must refuse reads, not grow the process's memory).
   */
  record(event: AuditEvent): Promise<void> {
    if (this.pending.length >= this.queueLimit) {
      this.stats.refused++;
      return Promise.reject(new AuditUnavailableError(`${this.pending.length} audit rows already wait`));
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stats.refused++;
        reject(new AuditUnavailableError(`audit row not committed within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.enqueue(event, (error) => {
        clearTimeout(timer);
        if (!error) return resolve();
        this.stats.refused++;
        reject(new AuditUnavailableError(error.message));
      });
    });
  }

  /**
   * `record` for an answer that waits on its row (fail-closed): an unavailable trail refuses it
   * with `503 AUDIT_UNAVAILABLE` and `refusal`, which says what was held back.
   */
  async recordOrRefuse(event: AuditEvent, refusal: string): Promise<void> {
    try {
      await this.record(event);
    } catch (error) {
      if (error instanceof AuditUnavailableError) throw new ApiError('AUDIT_UNAVAILABLE', refusal);
      throw error;
    }
  }

  /** Queues the row (when fewer than AUDIT_QUEUE_LIMIT wait); a failure or a full queue is counted and logged, never thrown. */
  recordBestEffort(event: AuditEvent): void {
    if (this.pending.length >= this.queueLimit) {
      this.stats.lost++;
      if (this.stats.lost % 1000 === 1)
        this.logger.warn({ request_id: event.requestId, lost: this.stats.lost }, 'audit queue full: row lost');
      return;
    }
    this.enqueue(event, (error) => {
      if (!error) return;
      this.stats.lost++;
      this.logger.warn({ request_id: event.requestId, err: error.message, lost: this.stats.lost }, 'audit row lost');
    });
  }

  /**
   * For readiness: the store answers and the role may append to the trail. (Not whether it may
   * read a company's events: a deployment whose audit role lacks that answers
   * `GET /v1/audit-events` with 503 AUDIT_UNAVAILABLE, and serves every other route.)
   */
  async check(): Promise<void> {
    const { rows } = await this.pool.query<{ ok: boolean }>(`SELECT has_table_privilege('audit_events', 'INSERT') AS ok`);
    if (!rows[0]?.ok) throw new Error('the audit role may not insert into audit_events');
  }

  /** Runs `hand` before the trail closes, so rows still gathered elsewhere are queued in time. */
  beforeClose(hand: () => void): void {
    this.closing.push(hand);
  }

  /** Lets queued rows be written (each write is bounded by the timeouts), then closes the pool. */
  async onModuleDestroy(): Promise<void> {
    for (const hand of this.closing.splice(0)) hand();
    const deadline = Date.now() + 2 * this.timeoutMs;
    while ((this.pending.length || this.inFlight) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.pool.end();
  }

  private enqueue(event: AuditEvent, done: Waiting['done']): void {
    this.pending.push({ event, done });
    this.schedule();
  }

  /** Gathers what arrives in the same turn of the event loop into one batch. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || !this.pending.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= MAX_IN_FLIGHT || !this.pending.length) return;
    const batch = this.pending.splice(0, MAX_BATCH);
    this.inFlight++;
    try {
      await this.write(batch);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  /**
   * One INSERT for the batch. When the database refuses a row's data (rather than being
   * unreachable), the rows are written one by one, so a bad row fails alone instead of
   * failing every request that shares its batch.
   */
  private async write(batch: Waiting[]): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await this.insert(batch.map((w) => w.event));
      this.metrics.auditWritten(batch.length, secondsSince(started), true);
      this.stats.written += batch.length;
      this.stats.batches++;
      for (const w of batch) w.done();
    } catch (error) {
      this.metrics.auditWritten(batch.length, secondsSince(started), false);
      if (batch.length > 1 && isDataError(error)) {
        for (const w of batch) await this.write([w]);
        return;
      }
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const w of batch) w.done(failure);
    }
  }

  private async insert(events: AuditEvent[]): Promise<void> {
    const column = <T>(pick: (e: AuditEvent) => T) => events.map(pick);
    await this.pool.query({
      name: 'audit-insert',
      text: INSERT,
      values: [
        column((e) => e.occurredAt),
        column((e) => e.requestId),
        column((e) => e.company),
        column((e) => e.client),
        column((e) => e.address),
        column((e) => e.method),
        column((e) => e.route),
        column((e) => JSON.stringify(e.pathParams)),
        column((e) => JSON.stringify(e.query)),
        column((e) => e.status),
        column((e) => JSON.stringify(e.resourceIds)),
        column((e) => e.truncated),
        column((e) => e.attempts ?? 1),
      ],
    });
  }
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): the rows, not the store, are at fault. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}
