import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ClsService } from 'nestjs-cls';
import { AuditEvent, auditEventOf } from '../audit/audit-event';
import { AuditTrail } from '../audit/audit-trail';
import { AuthErrors } from '../auth/auth-errors';
import { readableObjects } from '../changes/change.vocabulary';
import { ChangesRepository } from '../changes/changes.repository';
import { feedBinding } from '../changes/changes.service';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { ShutdownState } from '../common/http/shutdown-state';
import { AppConfig } from '../config/app-config';
import { COLLECTION_SCOPES, READ_SCOPES, Scope } from '../contract/scopes';
import { ExportLease, ExportPool } from '../database/export-pool';
import { TenantTransaction } from '../database/tenant-transaction';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { RATE_LIMIT_HEADER } from '../rate-limit/rate-limit-headers';
import { ExportBatches, ExportJob } from './export-batches';
import { ExportMetrics } from './export-metrics';
import { EXPORT_COLLECTIONS, EXPORT_TYPES, ExportPart, ExportQuery, ExportType, exportTypeOf } from './export.query';
import { NdjsonStream, writeNdjsonHead } from './ndjson-stream';

/** Seconds a client told the exports are busy waits before trying again. */
const BUSY_RETRY_SECONDS = 30;

/**
 * `GET /v1/export`: every record of the company's collections from one snapshot, as NDJSON. The
 * order of work: the token's scopes for the types and parts; a connection of the export pool
 * (EXPORT_POOL_SIZE, never the request pool's: none free is a 429 at once, across companies); one
 * of the company's export slots (EXPORT_CONCURRENCY, transaction-scoped advisory locks, so every
 * replica counts the same); a refusal for busy slots or connections gives the `export` quota back;
 * the audit row (fail-closed: no byte without it); the feed's position as of the snapshot
 * (`Feed-Cursor`, on a first stream only: a resumed one, with `after`, names none, since the
 * client must follow the feed from its first stream's); then the records, batch after batch
 * (ExportBatches), each batch read only once the one before was taken by the client
 * (back-pressure), until the trailer line. A reader that takes nothing for EXPORT_IDLE_SECONDS is
 * cut, as is a stream older than EXPORT_MAX_SECONDS, one whose reader accepted too little in a
 * window (NdjsonStream), and every stream at the drain deadline of a shutdown; each end is
 * audited with its count and outcome, and counted (ExportMetrics). `HEAD` gets the headers after
 * the same checks, and nothing else: no slot, no snapshot, no quota.
 */
@Injectable()
export class ExportService {
  /** The streams running now: a shutdown cuts them. */
  private readonly running = new Set<NdjsonStream>();

  constructor(
    private readonly tenant: TenantTransaction,
    private readonly batches: ExportBatches,
    private readonly changes: ChangesRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
    private readonly trail: AuditTrail,
    private readonly config: AppConfig,
    private readonly pool: ExportPool,
    private readonly limiter: RateLimiter,
    private readonly metrics: ExportMetrics,
    shutdown: ShutdownState,
  ) {
    // Streams end just before the drain deadline, with their outcome audited, rather than be cut by it.
    shutdown.onBegin(() => {
      const cutAt = Math.max(0, config.shutdownDelayMs + config.shutdownGraceMs - 1000);
      setTimeout(() => {
        for (const stream of this.running) stream.cut('shutdown');
      }, cutAt).unref();
    });
  }

  async stream(query: ExportQuery, req: Request, res: Response): Promise<void> {
    const principal = principalOf(this.cls);
    const types = this.types(principal.scopes, query.types);
    const parts = query.include ?? [];
    this.checkParts(principal.scopes, types, parts);
    const from = query.after ? exportTypeOf(query.after)! : types[0];
    if (!types.includes(from)) throw new ApiError('INVALID_FILTER', 'after must be an id of one of the exported collections.');
    const { exportConcurrency } = this.config.exports;
    if (req.method === 'HEAD') return this.head(req, res);

    const lease = await this.pool.tryLease();
    if (!lease) {
      throw await this.busy(res, `This instance already runs ${this.pool.size} exports (of every company)`);
    }
    // The records are sent inside the snapshot's transaction; the trailer only once it ended, so
    // a client that starts its next export as soon as this one's trailer arrived finds the slot free.
    let finish: ((failed?: unknown) => Promise<void>) | undefined;
    const since = Date.now();
    let closeSnapshot: (() => void) | undefined;
    let broken = false;
    try {
      await this.tenant.runSnapshot(
        lease.client,
        principal.companyId,
        async () => {
          closeSnapshot = this.metrics.snapshotOpened(since);
          if (!(await this.takeSlot(lease, principal.companyId, exportConcurrency))) {
            throw await this.busy(res, `The company already runs ${exportConcurrency} exports`);
          }
          const started = auditEventOf(req, this.cls, 200);
          await this.audit(started);
          // A resumed stream (after=) names no cursor: its snapshot is newer than the first stream's,
          // and the feed from a newer cursor skips what changed between the two.
          const feedCursor = query.after
            ? null
            : this.codec.seal(feedBinding(principal.companyId, readableObjects(principal.scopes)), await this.changes.head());
          finish = await this.send(
            res,
            { types: types.slice(types.indexOf(from)), after: query.after ?? null, parts },
            feedCursor,
            started,
          );
        },
        this.pool.idleMs,
      );
    } catch (error) {
      // A refusal leaves the connection as it was; anything else may have left it unusable.
      broken = !(error instanceof ApiError);
      // Before the stream began, the error is the answer; after (its transaction failed to end),
      // the stream ends without its trailer, and the client resumes with after=.
      if (!finish) throw error;
      return finish(error);
    } finally {
      closeSnapshot?.();
      lease.release(broken);
    }
    await finish?.(); // set: the transaction's work is the stream
  }

  /**
   * `HEAD /v1/export`: the status and headers a GET would start with, after the same checks
   * (authentication, scopes, the query), and nothing else: no record read, no slot or connection
   * taken, no snapshot, and the `export` quota given back. No `Feed-Cursor`: it names the snapshot
   * a GET opens. Audited as a request, never as an export.
   */
  private async head(req: Request, res: Response): Promise<void> {
    const state = await this.limiter.giveBack('export');
    if (state) res.setHeader(RATE_LIMIT_HEADER, state);
    await this.audit(auditEventOf(req, this.cls, 200));
    writeNdjsonHead(res);
    res.end();
  }

  /**
   * The refusal when every slot (the company's) or connection (the instance's) is taken: `429`
   * with `Retry-After`, and the `export` quota this request spent given back, since it did no work.
   */
  private async busy(res: Response, why: string): Promise<ApiError> {
    const state = await this.limiter.giveBack('export');
    if (state) res.setHeader(RATE_LIMIT_HEADER, state);
    return new ApiError('RATE_LIMIT_EXCEEDED', `${why}; retry after ${BUSY_RETRY_SECONDS} seconds.`, {
      'Retry-After': String(BUSY_RETRY_SECONDS),
    });
  }

  /**
   * Writes the stream's headers and every record; resolves, once the records are written or the
   * stream was cut, to what finishes it after the snapshot's transaction: the trailer (when every
   * record went out and the transaction ended without `failed`), and the audit of how it ended.
   */
  private async send(
    res: Response,
    job: ExportJob,
    feedCursor: string | null,
    started: AuditEvent,
  ): Promise<(failed?: unknown) => Promise<void>> {
    const began = Date.now();
    const records: Record<string, number> = Object.fromEntries(job.types.map((t) => [t, 0]));
    const { exportIdleSeconds, maxSeconds, minBytesPerMinute, rateWindowSeconds } = this.config.exports;
    const stream = new NdjsonStream(res, { idleMs: exportIdleSeconds * 1000, maxSeconds, minBytesPerMinute, rateWindowSeconds });
    this.running.add(stream);
    this.metrics.started();
    writeNdjsonHead(res);
    if (feedCursor) res.setHeader('Feed-Cursor', feedCursor);

    await this.batches.readAll(job, stream, async (type, lines) => {
      await stream.write(lines);
      records[type] += lines.length;
      this.metrics.wrote(lines.length);
    });
    const ended = () => {
      stream.stop();
      this.running.delete(stream);
      const seconds = (Date.now() - began) / 1000;
      this.metrics.ended(stream.outcome, stream.bytes, seconds);
      // How it ended, beside the row that let it start (best effort: the stream is over either way).
      const { outcome, bytes } = stream;
      this.trail.recordBestEffort({
        ...started,
        occurredAt: new Date(),
        query: { ...started.query, export: { outcome, records, bytes, seconds: Math.round(seconds * 1000) / 1000 } },
      });
    };
    if (stream.outcome !== 'complete') {
      ended();
      return async () => undefined;
    }
    return async (failed?: unknown) => {
      try {
        if (failed) throw failed;
        await stream.end(JSON.stringify({ object: 'export', records, feed_cursor: feedCursor }));
      } catch (error) {
        stream.fail(error);
      } finally {
        ended();
      }
    };
  }

  /** The types asked for (every readable one by default), each readable by the token; else 403. */
  private types(scopes: readonly string[], asked: readonly ExportType[] | undefined): ExportType[] {
    const readable = EXPORT_TYPES.filter((type) => scopes.includes(COLLECTION_SCOPES[type].read));
    const types = asked ?? readable;
    const unreadable = types.find((type) => !readable.includes(type));
    if (unreadable) throw AuthErrors.insufficientScope([COLLECTION_SCOPES[unreadable].read]);
    if (!types.length) throw AuthErrors.insufficientScope(READ_SCOPES, true);
    return EXPORT_TYPES.filter((type) => types.includes(type));
  }

  /** Each part needs what its own route needs, for each exported collection that has it. */
  private checkParts(scopes: readonly string[], types: readonly ExportType[], parts: readonly ExportPart[]): void {
    const needed = new Set<Scope>();
    for (const type of types) if (parts.includes(EXPORT_COLLECTIONS[type].contentPart)) needed.add(COLLECTION_SCOPES[type].content);
    const missing = [...needed].filter((scope) => !scopes.includes(scope));
    if (missing.length) throw AuthErrors.insufficientScope(missing);
  }

  /** One of the company's slots, held as long as the lease (the snapshot's transaction); false when all are taken. */
  private async takeSlot(lease: ExportLease, companyId: string, slots: number): Promise<boolean> {
    for (let slot = 0; slot < slots; slot++) {
      if (await lease.tryLock(`conversation-read-api:export:${companyId}:${slot}`)) return true;
    }
    return false;
  }

  private async audit(event: AuditEvent): Promise<void> {
    await this.trail.recordOrRefuse(
      event,
      'The export could not be recorded in the audit trail, so it was not started; retry with backoff.',
    );
  }
}
