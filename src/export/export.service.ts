import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Socket } from 'node:net';
import { ClsService } from 'nestjs-cls';
import { AuditEvent, auditEventOf } from '../audit/audit-event';
import { AuditTrail, AuditUnavailableError } from '../audit/audit-trail';
import { AuthErrors } from '../auth/auth-errors';
import { readableObjects } from '../changes/change.vocabulary';
import { ChangesRepository } from '../changes/changes.repository';
import { feedBinding } from '../changes/changes.service';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { ApiError } from '../common/errors/api-error';
import { PART_CHARS } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { ShutdownState } from '../common/http/shutdown-state';
import { AppConfig } from '../config/app-config';
import { Scope } from '../contract/scopes';
import { CHAT_CHANNEL } from '../chat/chat-channel';
import { ConversationChannel } from '../conversations/conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
import { ConversationPart } from '../conversations/list-conversations.query';
import { ConversationsService, storedColumns } from '../conversations/conversations.service';
import { ExportPool } from '../database/export-pool';
import { TenantTransaction } from '../database/tenant-transaction';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import { Metrics } from '../metrics/metrics';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { RATE_LIMIT_HEADER } from '../rate-limit/rate-limit-headers';
import { RecordingPart } from '../recordings/recording.vocabulary';
import { RecordingsRepository } from '../recordings/recordings.repository';
import { RecordingsService } from '../recordings/recordings.service';
import { EXPORT_TYPES, ExportPart, ExportQuery, ExportType, exportTypeOf } from './export.query';

/** Records read and written per batch. */
const BATCH = 100;
/**
 * Meetings or calls per batch when their transcripts come with them: a transcript of 1,000
 * utterances is some 150 KB of JSON, so a batch of 100 was 15 MB held twice per stream (the
 * batch written, waiting in the socket's buffer for a slow reader, and the next one read ahead):
 * four slow exports took the service from 155 to 357 MB (bench:neighbours). Ten keep it near 3 MB.
 */
const BATCH_WITH_TRANSCRIPTS = 10;
/** Messages a batch of conversations holds at most (a first conversation with more comes alone, its messages read in slices). */
const BATCH_MESSAGES = 2000;
/** At most about this many bytes of stored messages in one batch (a conversation with more is a batch of its own). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Seconds a client told the exports are busy waits before trying again. */
const BUSY_RETRY_SECONDS = 30;

/** How an export ended. */
export type ExportOutcome = 'complete' | 'client_closed' | 'idle_timeout' | 'max_duration' | 'too_slow' | 'shutdown' | 'error';
const OUTCOMES: readonly ExportOutcome[] = ['complete', 'client_closed', 'idle_timeout', 'max_duration', 'too_slow', 'shutdown', 'error'];

const SCOPE_OF: Record<ExportType, Scope> = { meeting: 'meetings.read', call: 'calls.read', email: 'emails.read', chat: 'chat.read' };

/** Why a stream stopped before its end. */
class Cut extends Error {
  constructor(readonly outcome: ExportOutcome) {
    super(outcome);
  }
}

/** One running export: how to cut it. */
interface Running {
  cut(outcome: ExportOutcome): void;
}

/**
 * `GET /v1/export`: every record of the company's collections from one snapshot, as NDJSON. The
 * order of work: the token's scopes for the types and parts; a connection of the export pool
 * (EXPORT_POOL_SIZE, never the request pool's: none free is a 429 at once, across companies); one
 * of the company's export slots (EXPORT_CONCURRENCY, transaction-scoped advisory locks, so every
 * replica counts the same); a refusal for busy slots or connections gives the `export` quota back;
 * the audit row (fail-closed: no byte without it); the feed's position as of the snapshot
 * (`Feed-Cursor`, on a first stream only: a resumed one, with `after`, names none, since the
 * client must follow the feed from its first stream's); then the records, batch after batch, each batch read only once the one before
 * was taken by the client (back-pressure), until the trailer line. A reader that takes nothing
 * for EXPORT_IDLE_SECONDS is cut, as is a stream older than EXPORT_MAX_SECONDS, one whose reader
 * accepted too little in a window (exportRate), and every stream at the drain deadline of a
 * shutdown; each end is audited with its count and outcome. `HEAD` gets the headers after the
 * same checks, and nothing else: no slot, no snapshot, no quota.
 */
@Injectable()
export class ExportService {
  private readonly logger = new Logger('Export');
  private readonly running = new Set<Running>();
  /** When each open export snapshot began (ms since the epoch). */
  private readonly snapshots = new Set<{ since: number }>();
  readonly stats = {
    started: 0,
    records: 0,
    bytes: 0,
    ended: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<ExportOutcome, number>,
    seconds: 0,
  };

  constructor(
    private readonly tenant: TenantTransaction,
    private readonly recordings: RecordingsService,
    private readonly recordingRows: RecordingsRepository,
    private readonly conversations: ConversationsService,
    private readonly conversationRows: ConversationsRepository,
    private readonly changes: ChangesRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
    private readonly trail: AuditTrail,
    private readonly config: AppConfig,
    private readonly pool: ExportPool,
    private readonly limiter: RateLimiter,
    shutdown: ShutdownState,
    metrics: Metrics,
  ) {
    // Streams end just before the drain deadline, with their outcome audited, rather than be cut by it.
    shutdown.onBegin(() => {
      const cutAt = Math.max(0, config.shutdownDelayMs + config.shutdownGraceMs - 1000);
      setTimeout(() => {
        for (const stream of this.running) stream.cut('shutdown');
      }, cutAt).unref();
    });
    metrics.counter('exports_started_total', 'Export streams started (after their checks, their slot and their audit row).', [
      { read: () => this.stats.started },
    ]);
    metrics.counter(
      'exports_ended_total',
      'Export streams ended, by outcome.',
      OUTCOMES.map((outcome) => ({ labels: { outcome }, read: () => this.stats.ended[outcome] })),
    );
    metrics.counter('export_records_total', 'Records written by export streams.', [{ read: () => this.stats.records }]);
    metrics.counter('export_bytes_total', 'Bytes of NDJSON written by export streams (before compression).', [
      { read: () => this.stats.bytes },
    ]);
    metrics.counter('export_seconds_total', 'Seconds export streams ran, summed.', [{ read: () => this.stats.seconds }]);
    metrics.gauge('exports_running', 'Export streams running now.', [{ read: () => this.running.size }]);
    metrics.gauge('export_oldest_snapshot_seconds', 'Age of the oldest open export snapshot (it holds back vacuum); 0 when none.', [
      { read: () => this.oldestSnapshotSeconds() },
    ]);
  }

  async stream(query: ExportQuery, req: Request, res: Response): Promise<void> {
    const principal = principalOf(this.cls);
    const types = this.types(principal.scopes, query.types);
    const parts = query.include ?? [];
    this.checkParts(principal.scopes, types, parts);
    const from = query.after ? exportTypeOf(query.after)! : types[0];
    if (!types.includes(from)) throw new ApiError('INVALID_FILTER', 'after must be an id of one of the exported collections.');
    const { exportConcurrency, exportIdleSeconds } = this.config.exports;
    if (req.method === 'HEAD') return this.head(req, res);

    const lease = await this.pool.tryLease();
    if (!lease) {
      throw await this.busy(res, `This instance already runs ${this.pool.size} exports (of every company)`);
    }
    // The records are sent inside the snapshot's transaction; the trailer only once it ended, so
    // a client that starts its next export as soon as this one's trailer arrived finds the slot free.
    let finish: ((failed?: unknown) => Promise<void>) | undefined;
    const snapshot = { since: Date.now() };
    let broken = false;
    try {
      await this.tenant.runSnapshot(
        lease.client,
        principal.companyId,
        async () => {
          this.snapshots.add(snapshot);
          if (!(await this.takeSlot(principal.companyId, exportConcurrency))) {
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
            { types: types.slice(types.indexOf(from)), after: query.after ?? null, parts, feedCursor, started },
            exportIdleSeconds * 1000,
          );
        },
        (exportIdleSeconds + 30) * 1000,
      );
    } catch (error) {
      // A refusal leaves the connection as it was; anything else may have left it unusable.
      broken = !(error instanceof ApiError);
      // Before the stream began, the error is the answer; after (its transaction failed to end),
      // the stream ends without its trailer, and the client resumes with after=.
      if (!finish) throw error;
      return finish(error);
    } finally {
      this.snapshots.delete(snapshot);
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
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson');
    res.setHeader('Cache-Control', 'no-store');
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

  private oldestSnapshotSeconds(): number {
    let oldest = Infinity;
    for (const { since } of this.snapshots) oldest = Math.min(oldest, since);
    return oldest === Infinity ? 0 : (Date.now() - oldest) / 1000;
  }

  /**
   * The stream's bounds in time, beside the idle cut: at EXPORT_MAX_SECONDS it is cut
   * (`max_duration`); and at the end of each window of EXPORT_RATE_WINDOW_SECONDS but the first
   * (the first fills the sockets' buffers, and the snapshot's first batches may be slow), a reader
   * that accepted fewer bytes in that window than EXPORT_MIN_BYTES_PER_MINUTE scaled to it is cut
   * (`too_slow`). Accepted: taken by the kernel from this process, on the wire (compressed when
   * the stream is), so a reader on gzip must take as many bytes as one without, and a trickle
   * that dodges the idle cut still ends. Either way the client resumes with `after=`.
   */
  private limitTime(res: Response, running: Running): { stop(): void } {
    const { maxSeconds, minBytesPerMinute, rateWindowSeconds } = this.config.exports;
    const deadline = setTimeout(() => running.cut('max_duration'), maxSeconds * 1000);
    const socket = res.socket;
    let window: NodeJS.Timeout | undefined;
    if (minBytesPerMinute > 0 && socket) {
      const minimum = (minBytesPerMinute * rateWindowSeconds) / 60;
      let mark = acceptedBy(socket);
      let first = true;
      window = setInterval(() => {
        const accepted = acceptedBy(socket);
        if (!first && accepted - mark < minimum) running.cut('too_slow');
        first = false;
        mark = accepted;
      }, rateWindowSeconds * 1000);
    }
    return {
      stop: () => {
        clearTimeout(deadline);
        clearInterval(window);
      },
    };
  }

  /** The types asked for (every readable one by default), each readable by the token; else 403. */
  private types(scopes: readonly string[], asked: readonly ExportType[] | undefined): ExportType[] {
    const readable = EXPORT_TYPES.filter((type) => scopes.includes(SCOPE_OF[type]));
    const types = asked ?? readable;
    const unreadable = types.find((type) => !readable.includes(type));
    if (unreadable) throw AuthErrors.insufficientScope([SCOPE_OF[unreadable]]);
    if (!types.length) throw AuthErrors.insufficientScope(Object.values(SCOPE_OF), true);
    return EXPORT_TYPES.filter((type) => types.includes(type));
  }

  /** Each part needs what its own route needs, for each exported collection that has it. */
  private checkParts(scopes: readonly string[], types: readonly ExportType[], parts: readonly ExportPart[]): void {
    const needed = new Set<Scope>();
    if (parts.includes('transcript') && types.some((t) => t === 'meeting' || t === 'call')) needed.add('transcriptions.read');
    if (parts.includes('messages') && types.includes('email')) needed.add('emails.content.read');
    if (parts.includes('messages') && types.includes('chat')) needed.add('chat.content.read');
    const missing = [...needed].filter((scope) => !scopes.includes(scope));
    if (missing.length) throw AuthErrors.insufficientScope(missing);
  }

  /** One of the company's slots, held until the snapshot's transaction ends; false when all are taken. */
  private async takeSlot(companyId: string, slots: number): Promise<boolean> {
    for (let slot = 0; slot < slots; slot++) {
      const [{ taken }] = await this.tenant.query<{ taken: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtextextended('conversation-read-api:export:' || $1 || ':' || $2, 0)) AS taken`,
        [companyId, slot],
      );
      if (taken) return true;
    }
    return false;
  }

  private async audit(event: AuditEvent): Promise<void> {
    try {
      await this.trail.record(event);
    } catch (error) {
      if (error instanceof AuditUnavailableError) {
        throw new ApiError(
          'AUDIT_UNAVAILABLE',
          'The export could not be recorded in the audit trail, so it was not started; retry with backoff.',
        );
      }
      throw error;
    }
  }

  /**
   * Writes the stream's headers and every record; resolves, once the records are written or the
   * stream was cut, to what finishes it after the snapshot's transaction: the trailer (when every
   * record went out and the transaction ended without `failed`), and the audit of how it ended.
   */
  private async send(
    res: Response,
    job: { types: ExportType[]; after: string | null; parts: readonly ExportPart[]; feedCursor: string | null; started: AuditEvent },
    idleMs: number,
  ): Promise<(failed?: unknown) => Promise<void>> {
    const began = Date.now();
    const records: Record<string, number> = Object.fromEntries(job.types.map((t) => [t, 0]));
    let bytes = 0;
    let outcome: ExportOutcome = 'complete';
    // A cut is a value checked between steps, and wakes the one wait for the client there may be.
    // (No promise lives as long as the stream: racing each step against one kept every step's
    // result reachable until the end, 2.8 GB over a 1,000,000-record export.)
    let cutFor: ExportOutcome | undefined;
    let wake: ((cut: Cut) => void) | undefined;
    const running: Running = {
      cut: (why) => {
        cutFor ??= why;
        wake?.(new Cut(why));
      },
    };
    const goOn = () => {
      if (cutFor) throw new Cut(cutFor);
    };
    res.once('close', () => {
      if (!res.writableFinished) running.cut('client_closed');
    });
    // A client gone before this listener (while its connection, slot or audit row were taken)
    // closed the response unheard: cut now, not after EXPORT_IDLE_SECONDS of writes that never drain.
    if (res.destroyed || res.socket?.destroyed !== false) running.cut('client_closed');
    const limits = this.limitTime(res, running);
    this.running.add(running);
    this.stats.started++;
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson');
    res.setHeader('Cache-Control', 'no-store');
    if (job.feedCursor) res.setHeader('Feed-Cursor', job.feedCursor);

    // One 'drain' listener for the whole stream: compression moves listeners added to the
    // response onto its encoder, where removing them later does not reach.
    let drained: (() => void) | undefined;
    res.on('drain', () => drained?.());
    /**
     * Writes `lines` (each with its newline) in parts under PART_CHARS, corked into one write to
     * the socket: no string of the stream reaches V8's large-object space, which only a full
     * collection frees. Resolves once the client took them (back-pressure), or on a cut.
     */
    const write = async (lines: readonly string[]): Promise<void> => {
      let written = 0;
      let part = '';
      let flowing = true;
      res.cork();
      for (const line of lines) {
        if (part.length + line.length + 1 > PART_CHARS && part) {
          flowing = res.write(part);
          written += Buffer.byteLength(part);
          part = '';
        }
        part += `${line}\n`;
      }
      if (part) {
        flowing = res.write(part);
        written += Buffer.byteLength(part);
      }
      res.uncork();
      bytes += written;
      if (flowing) return;
      // Back-pressure: nothing more is written until the client took this (the batch after it is read meanwhile).
      goOn();
      let timer: NodeJS.Timeout | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          drained = resolve;
          wake = reject;
          timer = setTimeout(() => reject(new Cut('idle_timeout')), idleMs);
        });
      } finally {
        drained = wake = undefined;
        clearTimeout(timer);
      }
    };

    const fail = (error: unknown) => {
      outcome = error instanceof Cut ? error.outcome : 'error';
      if (outcome === 'error') this.logger.error(`export failed: ${(error as Error).message}`);
      res.destroy(); // cut: the client sees no trailer and resumes with after=
    };

    // The batch being read ahead: the transaction ends only once it has (a cut leaves none running).
    let next: Promise<unknown> | undefined;
    try {
      for (const type of job.types) {
        let ahead: Promise<Batch>;
        const read = (after: string | null) => {
          ahead = this.batch(type, after, job.parts, goOn);
          ahead.catch(() => undefined); // awaited below; a cut meanwhile must not leave it unhandled
          next = ahead;
        };
        read(type === exportTypeOf(job.after ?? '') ? job.after : null);
        for (;;) {
          goOn();
          const batch = await ahead!; // one statement or two: a cut meanwhile is seen right after
          goOn();
          // The database reads the following batch while this one is rendered and goes to the client.
          if (!batch.done) read(batch.last);
          const lines = batch.lines();
          if (lines.length) {
            await write(lines);
            records[type] += lines.length;
            this.stats.records += lines.length;
          }
          if (batch.done) break;
        }
      }
      goOn();
    } catch (error) {
      fail(error);
    } finally {
      cutFor ??= outcome === 'complete' ? undefined : outcome; // a batch still being read stops before its next statement
      await next?.catch(() => undefined);
    }
    const ended = () => {
      limits.stop();
      this.running.delete(running);
      const seconds = (Date.now() - began) / 1000;
      this.stats.ended[outcome]++;
      this.stats.bytes += bytes;
      this.stats.seconds += seconds;
      // How it ended, beside the row that let it start (best effort: the stream is over either way).
      this.trail.recordBestEffort({
        ...job.started,
        occurredAt: new Date(),
        query: { ...job.started.query, export: { outcome, records, bytes, seconds: Math.round(seconds * 1000) / 1000 } },
      });
    };
    if (outcome !== 'complete') {
      ended();
      return async () => undefined;
    }
    return async (failed?: unknown) => {
      try {
        if (failed) throw failed;
        goOn();
        await write([JSON.stringify({ object: 'export', records, feed_cursor: job.feedCursor })]);
        res.end();
      } catch (error) {
        fail(error);
      } finally {
        ended();
      }
    };
  }

  /**
   * The next batch of `type` after `after`, as the database gives it: `lines` renders each record
   * as its list shows it with `parts`, as JSON text, when called (the next batch is read
   * meanwhile); `done` when no record of the type follows it. `goOn` throws once the stream was
   * cut, so a batch read ahead stops between its statements.
   */
  private async batch(type: ExportType, after: string | null, parts: readonly ExportPart[], goOn: () => void): Promise<Batch> {
    const company = principalOf(this.cls).companyId;
    if (type === 'meeting' || type === 'call') {
      const recordParts = parts.filter((p): p is RecordingPart => p !== 'messages');
      const take = recordParts.includes('transcript') ? BATCH_WITH_TRANSCRIPTS : BATCH;
      const rows = await this.recordingRows.exportPage(company, type, after, take, recordParts);
      return {
        lines: () => this.recordings.documents(rows).map((d) => d.text),
        last: rows[rows.length - 1]?.public_id ?? null,
        done: rows.length < take,
      };
    }
    const channel = (type === 'email' ? EMAIL_CHANNEL : CHAT_CHANNEL) as ConversationChannel<
      PositionedRow,
      MessageRowBase,
      unknown,
      unknown
    >;
    const conversationParts = parts.filter((p): p is ConversationPart => p === 'messages');
    const rows = await this.conversationRows.exportPage(channel.tables, company, after, BATCH, storedColumns(channel, conversationParts));
    goOn();
    // The conversations whose messages fit BATCH_MESSAGES (read live) and BATCH_BYTES (stored), at least one; the rest in the next
    // batch. Each line is bounded as a page is (PAGE_BYTES_MAX): a larger conversation carries its first messages and their cursor.
    const read = await this.conversations.render(channel, rows, conversationParts, {
      messages: BATCH_MESSAGES,
      bytes: BATCH_BYTES,
      conversation: this.config.pageBytesMax,
    });
    // One snapshot: nothing read from it is removed from it.
    if (read.gone.size) throw new Error('a conversation of the export snapshot was not found in it');
    return {
      lines: () => read.render().map((d) => d.text),
      last: read.count ? rows[read.count - 1].public_id : after,
      done: rows.length < BATCH && read.count === rows.length,
    };
  }
}

/**
 * Bytes the kernel took from this socket so far: `bytesWritten` counts what is still queued in
 * the socket's buffer and in libuv's write queue too, so both are taken off.
 */
function acceptedBy(socket: Socket): number {
  const queued = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
  return socket.bytesWritten - socket.writableLength - queued;
}

/** A batch read from the snapshot, rendered when `lines` is called. */
interface Batch {
  lines: () => string[];
  last: string | null;
  done: boolean;
}
