import { ApiError } from './errors.js';
import type { ExportRecord, ExportTrailer } from './types.js';

/** Opens one export request (with `after` when resuming): the answer, with its `Feed-Cursor` header. */
export type OpenExport = (after: string | undefined, signal: AbortSignal | undefined) => Promise<Response>;

export interface ExportStreamOptions {
  /** Resume strictly after this id (the last one you stored of an earlier, cut export). The stream then has no `feedCursor`: keep the earlier one's. */
  after?: string;
  /** When the stream is cut, request it again after the last record yielded, keeping the first `Feed-Cursor` (default true). */
  resume?: boolean;
  /** Cuts in a row, with no record between them, before giving up with `EXPORT_CUT` (default 5). */
  maxResumes?: number;
  signal?: AbortSignal;
}

/**
 * The export as an async iterator of parsed records, in the stream's order (meetings, calls, emails,
 * chats, each by ascending id), from one snapshot. Reading is pulled: the next bytes are read from
 * the network only when you ask for the next record, so a slow consumer slows the server down
 * instead of filling memory. A stream cut before its trailer is requested again with `after=` the
 * last record yielded (the first `Feed-Cursor` is kept: follow the change feed from it); with
 * `resume: false`, or after `maxResumes` cuts in a row, the iterator throws `ApiError` `EXPORT_CUT`.
 */
export class ExportStream implements AsyncIterable<ExportRecord> {
  /**
   * The first answer's `Feed-Cursor`: follow `GET /v1/changes` from it once the export is stored. Set once the stream opened;
   * stays null on a stream opened with `after` (a resumed export names no cursor: keep the one of the stream it resumes).
   */
  feedCursor: string | null = null;
  /** The trailer, once the stream ended complete. */
  trailer: ExportTrailer | null = null;
  /** The id of the last record yielded: where a resumed stream starts after. */
  lastId: string | null;
  /** Requests made (1, plus one per resumption). */
  requests = 0;
  private started = false;

  constructor(
    private readonly open: OpenExport,
    private readonly options: ExportStreamOptions = {},
  ) {
    this.lastId = options.after ?? null;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ExportRecord, void, undefined> {
    if (this.started) throw new TypeError('an ExportStream is iterated once; call export() again for another');
    this.started = true;
    const resume = this.options.resume ?? true;
    const maxResumes = this.options.maxResumes ?? 5;
    for (let cuts = 0; ;) {
      const response = await this.open(this.lastId ?? undefined, this.options.signal);
      this.requests++;
      if (this.requests === 1 && !this.options.after) {
        // The first answer's cursor is the one to follow the feed from; a later one could skip what this snapshot missed.
        // A stream opened with `after` continues an earlier one: it takes no cursor (the service names none), the earlier one's holds.
        this.feedCursor = response.headers.get('feed-cursor');
        if (!this.feedCursor)
          throw new ApiError({
            status: response.status,
            code: 'INVALID_RESPONSE',
            detail: 'the export answered without its Feed-Cursor header',
          });
      }
      let progressed = false;
      let cause: unknown = null;
      try {
        for await (const line of lines(response)) {
          const record = JSON.parse(line) as ExportRecord | ExportTrailer;
          if (typeof record !== 'object' || record === null || typeof record.object !== 'string')
            throw new SyntaxError(`not a record: ${line.slice(0, 100)}`);
          if (record.object === 'export') {
            this.trailer = record as ExportTrailer;
            return;
          }
          progressed = true;
          this.lastId = (record as ExportRecord).id;
          yield record as ExportRecord;
        }
      } catch (error) {
        if (this.options.signal?.aborted) throw this.options.signal.reason;
        if (error instanceof SyntaxError)
          throw new ApiError({ status: 0, code: 'INVALID_RESPONSE', detail: `an export line is not JSON: ${error.message}` });
        cause = error;
      }
      cuts = progressed ? 1 : cuts + 1;
      if (!resume || cuts > maxResumes)
        throw new ApiError({
          status: 0,
          code: 'EXPORT_CUT',
          detail: `the export stream ended before its trailer${this.lastId ? ` (after ${this.lastId}: resume with after=${this.lastId})` : ''}`,
          cause,
        });
    }
  }
}

/** The lines of an NDJSON body, without their newlines (empty lines skipped), read as they are asked for. */
async function* lines(response: Response): AsyncGenerator<string, void, undefined> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Only the new text is searched for a newline: a long line in many chunks stays linear.
      const from = buffered.length;
      buffered += decoder.decode(value, { stream: true });
      let start = 0;
      for (let nl = buffered.indexOf('\n', from); nl !== -1; nl = buffered.indexOf('\n', start)) {
        const line = buffered.slice(start, nl);
        start = nl + 1;
        if (line.trim()) yield line;
      }
      buffered = buffered.slice(start);
    }
    buffered += decoder.decode();
    // A last line without its newline is yielded only when it is whole (a cut one is not JSON).
    if (buffered.trim() && isJson(buffered)) yield buffered;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
