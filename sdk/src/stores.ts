import { once } from 'node:events';
import { createReadStream, createWriteStream, WriteStream } from 'node:fs';
import { open, rename, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SyncCheckpoint, SyncObject, SyncStore } from './sync.js';

/** A copy in memory: for tests, for a process that rebuilds its copy on start, or as a model for your own store. */
export class MemoryStore implements SyncStore {
  readonly objects = new Map<string, SyncObject>();
  checkpoint: SyncCheckpoint | null = null;

  get(key: string): SyncObject | undefined {
    const value = this.objects.get(key);
    return value && structuredClone(value);
  }
  has(key: string): boolean {
    return this.objects.has(key);
  }
  put(key: string, value: SyncObject): void {
    this.objects.set(key, structuredClone(value));
  }
  delete(key: string): boolean {
    return this.objects.delete(key);
  }
  saveCursor(checkpoint: SyncCheckpoint): void {
    this.checkpoint = structuredClone(checkpoint);
  }
  loadCursor(): SyncCheckpoint | null {
    return this.checkpoint && structuredClone(this.checkpoint);
  }
}

const BATCH = 1 << 20; // bytes gathered before one write
const END = Buffer.from('}\n');
const PUT = Buffer.from('{"put":"');
const VALUE = Buffer.from(',"value":');

/**
 * One file written through one stream, in batches; `flush` resolves once its bytes are written
 * (handed to the file system), and a write error (a full disk) rejects the next write, flush or
 * close instead of crashing the process.
 */
class Writer {
  private parts: Buffer[] = [];
  private size = 0;
  private failure: Error | null = null;
  private constructor(private readonly stream: WriteStream) {
    stream.on('error', (error) => (this.failure ??= error));
  }

  static async open(path: string, flags: string): Promise<Writer> {
    const stream = createWriteStream(path, { flags, highWaterMark: 4 * BATCH });
    await once(stream, 'ready');
    return new Writer(stream);
  }
  async write(...chunks: Array<string | Buffer>): Promise<void> {
    if (this.failure) throw this.failure;
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      this.parts.push(bytes);
      this.size += bytes.length;
    }
    if (this.size >= BATCH) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.size) return;
    const bytes = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    await new Promise<void>((resolve, reject) => this.stream.write(bytes, (error) => (error ? reject(error) : resolve())));
  }
  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      if (this.stream.closed) return this.failure ? reject(this.failure) : resolve();
      this.stream.once('close', () => (this.failure ? reject(this.failure) : resolve()));
      this.stream.end();
    });
  }
}

/** Hands what was written to a file (or a directory's entries) to the disk. */
async function fsync(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * A copy in one local file: an append-only journal of JSON lines, replayed on open.
 *
 *     {"put":"meeting:mtg_…","value":{"object":"meeting","id":"mtg_…","parent_id":null,"details":{…},…}}
 *     {"delete":"chat_message:wamsg_…"}
 *     {"export":{"feed_cursor":"cur_…","after":"mtg_…","stream":0}}   during the first copy
 *     {"cursor":"cur_…"}                                               after it: where the feed resumes
 *
 * A checkpoint line is appended (and handed to the file) only after the lines of what it covers,
 * so a crash at any point repeats work and never loses any. To read it, replay the lines in order:
 * the last put of a key wins, a delete removes it, the last checkpoint holds; a last line without
 * its newline is a write cut by a crash and is truncated away on open. When the journal holds more
 * than twice as many lines as live objects (checked at each checkpoint and on open), and on
 * `close()` when it holds any dead line, the live objects and the last checkpoint are written to
 * `<path>.tmp`, synced and renamed over it. Values are kept in memory as their JSON bytes (memory
 * about the size of the copy).
 */
export class JsonFileStore implements SyncStore {
  private readonly objects = new Map<string, Buffer>();
  private checkpoint: SyncCheckpoint | null = null;
  private lines = 0;
  private journal: Writer | null = null;

  private constructor(readonly path: string) {}

  /** Opens (or creates) the journal at `path`, replaying what it holds. */
  static async open(path: string): Promise<JsonFileStore> {
    const store = new JsonFileStore(path);
    await store.load();
    return store;
  }

  /** How many objects the copy holds. */
  get size(): number {
    return this.objects.size;
  }

  /** Every key and object of the copy (parsed as they are read). */
  *entries(): IterableIterator<[string, SyncObject]> {
    for (const [key, bytes] of this.objects) yield [key, JSON.parse(bytes.toString('utf8')) as SyncObject];
  }

  get(key: string): SyncObject | undefined {
    const bytes = this.objects.get(key);
    return bytes && (JSON.parse(bytes.toString('utf8')) as SyncObject);
  }
  has(key: string): boolean {
    return this.objects.has(key);
  }
  async put(key: string, value: SyncObject): Promise<void> {
    const bytes = Buffer.from(JSON.stringify(value));
    this.objects.set(key, bytes);
    await this.writer().write(...putLine(key, bytes));
    this.lines++;
  }
  async delete(key: string): Promise<boolean> {
    if (!this.objects.delete(key)) return false;
    await this.writer().write(`${JSON.stringify({ delete: key })}\n`);
    this.lines++;
    return true;
  }
  /** Appended after the lines of what it covers (one stream keeps their order), then handed to the file. */
  async saveCursor(checkpoint: SyncCheckpoint): Promise<void> {
    this.checkpoint = structuredClone(checkpoint);
    await this.writer().write(`${JSON.stringify(checkpoint)}\n`);
    this.lines++;
    await this.writer().flush();
    if (this.lines > 2 * (this.objects.size + 1)) await this.compact();
  }
  loadCursor(): SyncCheckpoint | null {
    return this.checkpoint && structuredClone(this.checkpoint);
  }

  /** Compacts the journal when it holds any dead line, and closes it. */
  async close(): Promise<void> {
    if (this.lines - this.objects.size - (this.checkpoint ? 1 : 0) > 0) await this.compact();
    await this.journal?.close();
    this.journal = null;
  }

  /** Writes the live objects and the last checkpoint to `<path>.tmp`, syncs it and renames it over the journal. */
  async compact(): Promise<void> {
    await this.journal?.close();
    this.journal = null;
    const tmp = `${this.path}.tmp`;
    const writer = await Writer.open(tmp, 'w');
    for (const [key, bytes] of this.objects) await writer.write(...putLine(key, bytes));
    if (this.checkpoint) await writer.write(`${JSON.stringify(this.checkpoint)}\n`);
    await writer.close();
    await fsync(tmp, 'r+');
    await rename(tmp, this.path);
    await fsync(dirname(this.path), 'r').catch(() => undefined); // the rename, where a directory can be synced
    this.lines = this.objects.size + (this.checkpoint ? 1 : 0);
    this.journal = await Writer.open(this.path, 'a');
  }

  private writer(): Writer {
    if (!this.journal) throw new Error(`${this.path}: the store is closed`);
    return this.journal;
  }

  /** Replays the journal, then opens it for appending: a last line cut by a crash is truncated away first. */
  private async load(): Promise<void> {
    let whole = 0; // bytes of whole lines
    let read = 0;
    let tail: Buffer[] = []; // the bytes after the last newline
    try {
      for await (const chunk of createReadStream(this.path, { highWaterMark: BATCH }) as AsyncIterable<Buffer>) {
        let start = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
          const piece = chunk.subarray(start, nl);
          this.replay(tail.length ? Buffer.concat([...tail, piece]) : piece);
          tail = [];
          start = nl + 1;
        }
        if (start) whole = read + start;
        if (start < chunk.length) tail.push(chunk.subarray(start));
        read += chunk.length;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (tail.length && !this.lines) {
      // A file of one JSON document without a newline: the state file of examples/sync.mjs before it
      // kept a journal ({"cursor", "export", "objects"}). Converted, never taken for a torn line.
      let earlier: { cursor?: string | null; export?: unknown; objects?: Record<string, unknown> } | null = null;
      try {
        earlier = JSON.parse(Buffer.concat(tail).toString('utf8'));
      } catch {
        earlier = null; // a first line cut by a crash
      }
      if (earlier && typeof earlier === 'object') {
        if (!earlier.objects || typeof earlier.objects !== 'object')
          throw new Error(`${this.path}: neither a journal nor a copy of the earlier format`);
        for (const [key, value] of Object.entries(earlier.objects)) this.objects.set(key, Buffer.from(JSON.stringify(value)));
        this.checkpoint = earlier.export
          ? ({ export: earlier.export } as SyncCheckpoint)
          : earlier.cursor
            ? { cursor: earlier.cursor }
            : null;
        return this.compact();
      }
    }
    if (!this.checkpoint && this.lines) {
      // Nothing was checkpointed: a first copy cut before its first checkpoint is no base to resume from.
      this.objects.clear();
      this.lines = 0;
      whole = 0;
    }
    if (whole < read) await truncate(this.path, whole);
    if (this.lines > 2 * (this.objects.size + 1)) return this.compact();
    this.journal = await Writer.open(this.path, 'a');
  }

  /** One whole line of the journal (its bytes, without the newline), applied to the state. */
  private replay(line: Buffer): void {
    if (!line.length) return;
    // Put lines as this store writes them are read without parsing: the value's bytes are kept as they are.
    const end = line.indexOf(0x22, PUT.length); // the key's closing quote
    const fast =
      end > 0 &&
      end + 1 + VALUE.length < line.length &&
      line.compare(PUT, 0, PUT.length, 0, PUT.length) === 0 &&
      !line.subarray(PUT.length, end).includes(0x5c) && // no escape in the key
      line.compare(VALUE, 0, VALUE.length, end + 1, end + 1 + VALUE.length) === 0 &&
      line[line.length - 1] === 0x7d;
    if (fast) {
      this.objects.set(line.toString('utf8', PUT.length, end), Buffer.from(line.subarray(end + 1 + VALUE.length, line.length - 1)));
    } else {
      let entry: { put?: string; value?: unknown; delete?: string; export?: unknown; cursor?: string };
      try {
        entry = JSON.parse(line.toString('utf8'));
      } catch {
        throw new Error(`${this.path}: line ${this.lines + 1} is damaged (not JSON); only a last line may be cut`);
      }
      const keys = entry && typeof entry === 'object' ? Object.keys(entry).sort().join(',') : '';
      if (keys === 'put,value' && typeof entry.put === 'string') this.objects.set(entry.put, Buffer.from(JSON.stringify(entry.value)));
      else if (keys === 'delete' && typeof entry.delete === 'string') this.objects.delete(entry.delete);
      else if (keys === 'export' && entry.export && typeof entry.export === 'object')
        this.checkpoint = { export: entry.export } as SyncCheckpoint;
      else if (keys === 'cursor' && typeof entry.cursor === 'string') this.checkpoint = { cursor: entry.cursor };
      else throw new Error(`${this.path}: line ${this.lines + 1} is not a journal line`);
    }
    this.lines++;
  }
}

/** A put line: these three pieces, the value's bytes as they are kept. */
function putLine(key: string, bytes: Buffer): Array<string | Buffer> {
  return [`{"put":${JSON.stringify(key)},"value":`, bytes, END];
}
