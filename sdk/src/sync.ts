import { ApiError } from './errors.js';
import type { ExportStream, ExportStreamOptions } from './export.js';
import { PageIterable } from './pagination.js';
import type { RequestOptions, Transport } from './transport.js';
import type {
  AnswerOf,
  Call,
  CallListQuery,
  Change,
  ChangesPage,
  ChangesQuery,
  ChatConversation,
  ChatListQuery,
  ChatMessage,
  ConversationPart,
  EmailConversation,
  EmailListQuery,
  EmailMessage,
  ExportQuery,
  ExportRecord,
  Meeting,
  MeetingListQuery,
  PathParamsOf,
  RecordingPart,
} from './types.js';

/** The copy's object types; a message's `parent_id` is its conversation. */
export type SyncObjectType = 'meeting' | 'call' | 'email' | 'chat' | 'email_message' | 'chat_message';

/**
 * One object of the copy, under the key `type:id`: what its routes answer. A meeting or call: its
 * details, evaluation, answers and transcript (the transcript with `transcriptions.read`); an e-mail
 * or chat conversation: its details; a message (with the channel's content scope): its details.
 */
export interface SyncObject {
  object: SyncObjectType;
  id: string;
  parent_id: string | null;
  details: Record<string, unknown>;
  evaluation?: unknown;
  answers?: unknown;
  transcript?: unknown;
}

/**
 * Where a copy resumes: the feed's cursor once the copy is complete, or, during the first copy,
 * the export's first `Feed-Cursor`, the last record stored and which of the export streams runs.
 */
export type SyncCheckpoint = { cursor: string } | { export: { feed_cursor: string; after: string | null; stream: number } };

/**
 * Where `sync` keeps the copy. Methods may return promises. `saveCursor` is called only after the
 * puts and deletes it covers were handed to the store, so a store that keeps its writes in order
 * (or makes them durable before the checkpoint) never loses one on a crash: it repeats work.
 */
export interface SyncStore {
  get(key: string): SyncObject | undefined | Promise<SyncObject | undefined>;
  /** Optional: whether the key is held, without reading its value (used when present). */
  has?(key: string): boolean | Promise<boolean>;
  put(key: string, value: SyncObject): void | Promise<void>;
  /** Removes the key; returns whether it was held (or nothing). */
  delete(key: string): boolean | void | Promise<boolean | void>;
  saveCursor(checkpoint: SyncCheckpoint): void | Promise<void>;
  loadCursor(): SyncCheckpoint | null | undefined | Promise<SyncCheckpoint | null | undefined>;
}

/** What a round of `sync` did so far; `onProgress` gets it after each checkpoint, `onRound` at the end of each round. */
export interface SyncProgress {
  /** `export` during the first copy, `feed` after it. */
  phase: 'export' | 'feed';
  /** Feed pages read. */
  pages: number;
  /** Feed entries applied. */
  entries: number;
  /** Records stored from the export. */
  exported: number;
  /** Objects fetched by id for feed entries. */
  fetched: number;
  /** Objects written to the store (records and messages; one written twice counts twice). */
  objects: number;
  created: number;
  updated: number;
  deleted: number;
  /** `/v1` requests sent (retries included). */
  requests: number;
  /** How far behind the feed the copy is, in ms: the age of the last entry applied while more remain; 0 once up to date. */
  lag: number;
}

export interface SyncOptions {
  /** Keep polling the feed after catching up, every `interval` ms, until `signal` aborts (default false). */
  follow?: boolean;
  /** The poll interval of follow mode in ms (default 5000). */
  interval?: number;
  /** Stops the sync at the next safe point (it resolves; nothing is lost, the last checkpoint holds). */
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  onRound?: (round: SyncProgress) => void;
  /** Take the first copy by export (default true); false reads the feed from the beginning instead. */
  useExport?: boolean;
  /** Feed entries read (ten pages of 100) before what they name is fetched (default 1000). */
  entriesPerApply?: number;
}

export interface SyncResult extends Omit<SyncProgress, 'phase' | 'lag'> {
  /** Catch-up rounds run (1 without `follow`). */
  rounds: number;
  /** The checkpoint the copy ended at. */
  checkpoint: SyncCheckpoint | null;
}

/**
 * What `syncCopy` reads the service through: the part of the client it uses. Declared here and
 * satisfied by `ConversationApi`, so the sync imports nothing of the client that offers it as
 * `api.sync()`: no import circle, and a fake source is enough to test it.
 */
export interface SyncSource {
  readonly transport: Pick<Transport, 'clock' | 'requests' | 'scopes'>;
  export(query: ExportQuery, options: ExportStreamOptions): ExportStream;
  readonly changes: { page(query: ChangesQuery, options?: RequestOptions): Promise<ChangesPage> };
  readonly meetings: { list(query: MeetingListQuery, options?: RequestOptions): AsyncIterable<Meeting> };
  readonly calls: { list(query: CallListQuery, options?: RequestOptions): AsyncIterable<Call> };
  readonly emails: { list(query: EmailListQuery, options?: RequestOptions): AsyncIterable<EmailConversation> };
  readonly chat: { list(query: ChatListQuery, options?: RequestOptions): AsyncIterable<ChatConversation> };
  /** A page of a conversation's messages: those after the embedded ones of a large conversation come from its `messages_next_cursor`. */
  get<P extends MessagesRoute>(path: P, query: object, pathParams: PathParamsOf<P>, options?: RequestOptions): Promise<AnswerOf<P>>;
}

type MessagesRoute = '/v1/emails/{email_id}/messages' | '/v1/chat/{chat_id}/messages';
type Collection = 'meeting' | 'call' | 'email' | 'chat';
type Part = RecordingPart | ConversationPart;
const COLLECTIONS: Record<Collection, { scope: string; content?: string }> = {
  meeting: { scope: 'meetings.read' },
  call: { scope: 'calls.read' },
  email: { scope: 'emails.read', content: 'emails.content.read' },
  chat: { scope: 'chat.read', content: 'chat.content.read' },
};
const COLLECTION_OF_EXPORT: Record<ExportRecord['object'], Collection> = {
  meeting: 'meeting',
  call: 'call',
  email_conversation: 'email',
  chat_conversation: 'chat',
};
const BATCH = 100;
const EXPORT_CHECKPOINT_RECORDS = 1000;
const EXPORT_CHECKPOINT_MS = 1000;

/**
 * Keeps a complete, current copy of the company in `store`, the fast way: the first copy by one
 * export (resumed after the last stored record when cut; the feed from the beginning when the
 * service offers no export), then the change feed from the export's first `Feed-Cursor`. Feed
 * entries are read up to a thousand at a time; what they name is fetched in batches of up to 100
 * per collection with `ids` + `include` (a message through its conversation with
 * `include=messages`), an id that does not come back is deleted, the batch is applied, and only
 * then is the cursor stored: a crash at any point repeats work and never loses any.
 */
export async function syncCopy(source: SyncSource, store: SyncStore, options: SyncOptions = {}): Promise<SyncResult> {
  return new Sync(source, store, options).run();
}

/** The counts of a round and of a whole sync, all zero. */
function noCounts(): Omit<SyncProgress, 'phase' | 'lag'> {
  return { pages: 0, entries: 0, exported: 0, fetched: 0, objects: 0, created: 0, updated: 0, deleted: 0, requests: 0 };
}

class Sync {
  private scopes: string[] = [];
  private checkpoint: SyncCheckpoint | null = null;
  private progress!: SyncProgress;
  private readonly total: SyncResult = { rounds: 0, ...noCounts(), checkpoint: null };
  private requestsAtStart = 0;

  constructor(
    private readonly source: SyncSource,
    private readonly store: SyncStore,
    private readonly options: SyncOptions,
  ) {}

  async run(): Promise<SyncResult> {
    const { signal } = this.options;
    this.checkpoint = (await this.store.loadCursor()) ?? null;
    try {
      do {
        signal?.throwIfAborted();
        await this.round();
        if (this.options.follow) await this.source.transport.clock.sleep(this.options.interval ?? 5000, signal);
      } while (this.options.follow);
    } catch (error) {
      // Stopped by the signal (everything rejects with its very reason): what was checkpointed holds.
      // Any other failure, even one around the time of an abort, is thrown.
      if (!signal?.aborted || error !== signal.reason) throw error;
      this.finishRound();
    }
    this.total.checkpoint = this.checkpoint;
    return this.total;
  }

  private async round(): Promise<void> {
    this.progress = { phase: 'feed', ...noCounts(), lag: 0 };
    this.requestsAtStart = this.source.transport.requests;
    this.scopes = await this.source.transport.scopes({ signal: this.options.signal });
    if (!this.checkpoint || 'export' in this.checkpoint) {
      if (this.options.useExport !== false) await this.exportAll();
    }
    await this.catchUp();
    this.finishRound();
  }

  private finishRound(): void {
    if (!this.progress) return;
    this.progress.requests = this.source.transport.requests - this.requestsAtStart;
    const { phase: _phase, lag: _lag, ...counts } = this.progress;
    for (const key of Object.keys(counts) as Array<keyof typeof counts>) this.total[key] += counts[key];
    this.total.rounds++;
    this.options.onRound?.({ ...this.progress });
    this.progress = undefined as unknown as SyncProgress;
  }

  private report(): void {
    this.progress.requests = this.source.transport.requests - this.requestsAtStart;
    this.options.onProgress?.({ ...this.progress });
  }

  private async save(checkpoint: SyncCheckpoint): Promise<void> {
    await this.store.saveCursor(checkpoint);
    this.checkpoint = checkpoint; // only once the store has it
    this.report();
  }

  private readable(type: Collection): boolean {
    return this.scopes.includes(COLLECTIONS[type].scope);
  }

  private withContent(type: Collection): boolean {
    const content = COLLECTIONS[type].content;
    return content !== undefined && this.scopes.includes(content);
  }

  /** The parts kept of a collection's objects, by the token's scopes. */
  private partsOf(type: Collection): Part[] {
    return type === 'meeting' || type === 'call' ? this.recordingParts() : this.conversationParts(type);
  }

  private recordingParts(): RecordingPart[] {
    return ['evaluation', 'answers', ...(this.scopes.includes('transcriptions.read') ? ['transcript' as const] : [])];
  }

  private conversationParts(type: 'email' | 'chat'): ConversationPart[] {
    return this.withContent(type) ? ['messages'] : [];
  }

  private async has(key: string): Promise<boolean> {
    return this.store.has ? await this.store.has(key) : (await this.store.get(key)) !== undefined;
  }

  /**
   * Stores one record as the copy keeps it (its included parts beside its details), and a
   * conversation's messages: those embedded and, when the conversation was larger than the
   * service's byte budget, the rest from `messages_next_cursor` through its messages route.
   * Whether it was new; each message stored is added to `stored`.
   */
  private async storeRecord(type: Collection, record: ExportRecord, stored?: Set<string>): Promise<boolean> {
    const { included, ...details } = record;
    const copy: SyncObject = { object: type, id: record.id, parent_id: null, details };
    if (type === 'meeting' || type === 'call') Object.assign(copy, included ?? {});
    const created = !(await this.has(`${type}:${record.id}`));
    await this.store.put(`${type}:${record.id}`, copy);
    this.progress.objects++;
    const storeMessage = async (message: EmailMessage | ChatMessage) => {
      this.progress.objects++;
      stored?.add(`${type}_message:${message.id}`);
      await this.store.put(`${type}_message:${message.id}`, {
        object: `${type}_message` as SyncObjectType,
        id: message.id,
        parent_id: record.id,
        details: message,
      });
    };
    const conversation = included && 'messages' in included ? included : undefined;
    for (const message of conversation?.messages ?? []) await storeMessage(message);
    const next = conversation?.messages_next_cursor;
    if (typeof next === 'string' && (type === 'email' || type === 'chat')) {
      const options = { signal: this.options.signal };
      const rest = new PageIterable<EmailMessage | ChatMessage>((cursor) => {
        const query = { cursor: cursor ?? next, limit: BATCH };
        return type === 'email'
          ? this.source.get('/v1/emails/{email_id}/messages', query, { email_id: record.id }, options)
          : this.source.get('/v1/chat/{chat_id}/messages', query, { chat_id: record.id }, options);
      });
      for await (const message of rest) await storeMessage(message);
    }
    return created;
  }

  /**
   * The export streams of a first copy: one, unless the token reads one channel's messages and not
   * the other's (`include` applies to every collection that has the part, and a part the token
   * cannot read is 403): then the channel without its content scope comes in a stream of its own,
   * after the first, whose `Feed-Cursor` stays the copy's.
   */
  private exportStreams(): Array<{ types: Collection[]; include: Part[] }> {
    const types = (Object.keys(COLLECTIONS) as Collection[]).filter((type) => this.readable(type));
    const bare = types.filter((type) => COLLECTIONS[type].content && !this.withContent(type));
    const full = types.filter((type) => !bare.includes(type));
    const include = [...new Set(full.flatMap((type) => this.partsOf(type)))];
    const streams = [{ types: full, include }];
    if (bare.length && full.some((type) => this.partsOf(type).includes('messages'))) streams.push({ types: bare, include: [] });
    else streams[0] = { types, include };
    return streams.filter((stream) => stream.types.length);
  }

  /** The first copy by export; false (and nothing stored) when the service offers none to this token. */
  private async exportAll(): Promise<boolean> {
    const streams = this.exportStreams();
    if (!streams.length) return false;
    this.progress.phase = 'export';
    for (;;) {
      const position = this.checkpoint && 'export' in this.checkpoint ? this.checkpoint.export : null;
      const index = position?.stream ?? 0;
      if (index >= streams.length)
        throw new ApiError({
          status: 0,
          code: 'SCOPES_CHANGED',
          detail: 'the token reads other collections than when this first copy began: take a fresh copy into an empty store',
        });
      const { types, include } = streams[index]!;
      const stream = this.source.export(
        { types, ...(include.length ? { include } : {}) },
        { after: position?.after ?? undefined, signal: this.options.signal },
      );
      let since = 0;
      let at = Date.now();
      try {
        for await (const record of stream) {
          if (!position && !(this.checkpoint && 'export' in this.checkpoint)) {
            // The first Feed-Cursor, before any record: a restart that replays them keeps it.
            await this.save({ export: { feed_cursor: stream.feedCursor!, after: null, stream: 0 } });
          }
          if (await this.storeRecord(COLLECTION_OF_EXPORT[record.object], record)) this.progress.created++;
          this.progress.exported++;
          if (++since >= EXPORT_CHECKPOINT_RECORDS || Date.now() - at >= EXPORT_CHECKPOINT_MS) {
            await this.saveExportAfter(record.id);
            since = 0;
            at = Date.now();
          }
        }
      } catch (error) {
        // Refused before it opened (no export route, or not for this token): the feed from the beginning does the first copy.
        if (error instanceof ApiError && (error.status === 403 || error.status === 404) && !stream.requests) return false;
        throw error;
      }
      if (!(this.checkpoint && 'export' in this.checkpoint)) {
        // An export with no record: still its cursor first.
        await this.save({ export: { feed_cursor: stream.feedCursor!, after: null, stream: 0 } });
      }
      const current = (this.checkpoint as { export: { feed_cursor: string; after: string | null; stream: number } }).export;
      if (index + 1 < streams.length) {
        await this.save({ export: { feed_cursor: current.feed_cursor, after: null, stream: index + 1 } }); // the next stream, same first Feed-Cursor
        continue;
      }
      // The first Feed-Cursor: a later one could skip what the first snapshot missed.
      await this.save({ cursor: current.feed_cursor });
      return true;
    }
  }

  private async saveExportAfter(after: string): Promise<void> {
    const current = (this.checkpoint as { export: { feed_cursor: string; after: string | null; stream: number } }).export;
    await this.save({ export: { ...current, after } });
  }

  /**
   * Reads the feed until it is up to date: up to `entriesPerApply` entries at a time, then fetches
   * and applies what they name, then stores the cursor after them.
   */
  private async catchUp(): Promise<void> {
    this.progress.phase = 'feed';
    const limit = this.options.entriesPerApply ?? 1000;
    for (;;) {
      const entries: Change[] = [];
      const from = this.checkpoint && 'cursor' in this.checkpoint ? this.checkpoint.cursor : undefined;
      let cursor = from;
      let more: boolean;
      do {
        const page = await this.source.changes.page({ limit: 100, ...(cursor ? { cursor } : {}) }, { signal: this.options.signal });
        entries.push(...page.data);
        cursor = page.pagination.next_cursor;
        more = page.pagination.has_more;
        this.progress.pages++;
      } while (more && entries.length < limit);
      await this.applyEntries(entries);
      this.progress.entries += entries.length;
      const last = entries[entries.length - 1];
      this.progress.lag = more && last ? Math.max(0, Date.now() - Date.parse(last.committed_at)) : 0;
      if (cursor !== from || (this.checkpoint && 'export' in this.checkpoint)) await this.save({ cursor: cursor! });
      else this.report();
      if (!more) return;
    }
  }

  /**
   * Fetches what the entries name and applies it. Each collection's objects come in batches of up
   * to 100 with `ids` + `include`; a message entry fetches its conversation with
   * `include=messages`. Everything that came back is stored; a named object or message that did not
   * come back is deleted, unless the batch stored it under another conversation (a message moved).
   */
  private async applyEntries(entries: Change[]): Promise<void> {
    const wanted = new Map<Collection, Set<string>>();
    const named = new Set<string>();
    for (const entry of entries) {
      const message = entry.object.endsWith('_message');
      const type = (message ? entry.object.slice(0, -'_message'.length) : entry.object) as Collection;
      if (!wanted.has(type)) wanted.set(type, new Set());
      wanted.get(type)!.add(message ? entry.parent_id! : entry.object_id);
      named.add(`${entry.object}:${entry.object_id}`);
    }
    const stored = new Set<string>();
    for (const [type, idSet] of wanted) {
      const ids = [...idSet];
      for (let i = 0; i < ids.length; i += BATCH) {
        for await (const record of this.records(type, ids.slice(i, i + BATCH))) {
          this.progress.fetched++;
          if (await this.storeRecord(type, record, stored)) this.progress.created++;
          else this.progress.updated++;
          stored.add(`${type}:${record.id}`);
        }
      }
    }
    for (const key of named) {
      if (stored.has(key)) continue;
      const held = this.store.has ? await this.store.has(key) : undefined;
      const removed = await this.store.delete(key);
      if (removed === true || (removed === undefined && held)) this.progress.deleted++;
    }
  }

  /** The objects of a collection named by `ids` (up to 100), with the parts the copy keeps. */
  private records(type: Collection, ids: string[]): AsyncIterable<ExportRecord> {
    const options = { signal: this.options.signal };
    if (type === 'meeting') return this.source.meetings.list({ ids, limit: BATCH, include: this.recordingParts() }, options);
    if (type === 'call') return this.source.calls.list({ ids, limit: BATCH, include: this.recordingParts() }, options);
    const include = this.conversationParts(type);
    const query = { ids, limit: BATCH, ...(include.length ? { include } : {}) };
    return type === 'email' ? this.source.emails.list(query, options) : this.source.chat.list(query, options);
  }
}
