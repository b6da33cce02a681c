#!/usr/bin/env node
// Keeps a complete, current copy of a company's conversations in a local file, the fast way:
// one export stream for the first copy (resumed with `after=` if it is cut), then the change
// feed from the export's Feed-Cursor, fetching what each page of entries names in batches of up
// to 100 with `ids` + `include` (ids that do not come back are deleted), applying the page, then
// storing the feed's cursor. Node 20 or later, no dependencies.
//
//   BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… node examples/sync.mjs --state copy.json [--follow] [--interval 5]
//
// Feed entries are read up to a thousand at a time before what they name is fetched, so an object
// named by many of them is fetched once.
//
// The copy holds, per object, what its routes answer: a meeting or call's details, evaluation,
// answers and transcript (the transcript needs transcriptions.read); a conversation's details;
// each message (with the content scope). It prints one JSON line per run: what it applied.
//
// The state file is an append-only journal, one JSON object per line:
//   {"put":"meeting:mtg_…","value":{"object":"meeting","id":"mtg_…","parent_id":null,"details":{…},"evaluation":…}}
//   {"delete":"chat_message:wamsg_…"}
//   {"export":{"feed_cursor":"cur_…","after":"mtg_…","stream":0}}   during the backfill: the first Feed-Cursor, the
//                                                      export stream running and the last id it stored
//   {"cursor":"cur_…"}                                   after it: where the feed resumes
// Keys are `type:id` (meeting, call, email, chat, email_message, chat_message; a message's
// parent_id is its conversation). A checkpoint line (export or cursor) is appended only after the
// lines of what it covers, so a crash at any point repeats work and never loses any. To read it,
// replay the lines in order: the last put of a key wins, a delete removes it, the last checkpoint
// holds; a last line without its newline is a write cut by a crash: ignore it (this script
// truncates it away before appending). When a run ends (with --follow: when the journal holds more
// than twice as many lines as live objects, and at exit), and at start when it is that large, the
// live objects and the last checkpoint are written to `<state>.tmp`, synced and renamed over it.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    state: { type: 'string', default: 'conversation-copy.json' },
    follow: { type: 'boolean', default: false },
    interval: { type: 'string', default: '5' },
  },
});
const BASE = (process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const { CLIENT_ID, CLIENT_SECRET } = process.env;
if (!CLIENT_ID || !CLIENT_SECRET) {
  process.stderr.write('set CLIENT_ID and CLIENT_SECRET (and BASE_URL)\n');
  process.exit(2);
}

/** Each collection: its list route, the copy's object type, and the scope that reads it. */
const COLLECTIONS = {
  meeting: { path: '/v1/meetings', scope: 'meetings.read' },
  call: { path: '/v1/calls', scope: 'calls.read' },
  email: { path: '/v1/emails', scope: 'emails.read', content: 'emails.content.read' },
  chat: { path: '/v1/chat', scope: 'chat.read', content: 'chat.content.read' },
};
/** The export's `object` of a line → the copy's type. */
const TYPE_OF_OBJECT = { meeting: 'meeting', call: 'call', email_conversation: 'email', chat_conversation: 'chat' };

let token;
let scopes = [];
let requests = 0;

async function authenticate() {
  const res = await fetch(`${BASE}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  const body = await res.json();
  token = body.access_token;
  scopes = body.scope.split(' ');
}

/** GET a route: the response once it is 200 (or 404, or 403 when `allowForbidden`); a new token on 401; waits out 429 and 503. */
async function request(path, { allowForbidden = false } = {}) {
  for (let attempt = 0; ; attempt++) {
    if (!token) await authenticate();
    requests++;
    const res = await fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' } });
    if (res.status === 200 || res.status === 404 || (res.status === 403 && allowForbidden)) return res;
    if (res.status === 401 && attempt < 2) {
      token = undefined;
      continue;
    }
    if ((res.status === 429 || res.status === 503) && attempt < 10) {
      const wait = Number(res.headers.get('retry-after') ?? 1) || 1;
      await new Promise((r) => setTimeout(r, Math.min(wait, 60) * 1000));
      continue;
    }
    throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  }
}

const get = async (path) => (await request(path)).json();

/** Every item of a list, page after page (a page may hold fewer than asked: only has_more ends it); null on 404. */
async function all(path) {
  const items = [];
  let cursor;
  do {
    const res = await request(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status === 404) return null;
    const page = await res.json();
    items.push(...page.data);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : null;
  } while (cursor);
  return items;
}

/** The copy: each object as the UTF-8 bytes of its value's JSON (memory about the size of the data), the last checkpoint, and the journal's line count. */
const state = { cursor: null, export: null, objects: new Map(), lines: 0 };
const BATCH = 1 << 20; // bytes gathered before one write

/** One file written through one stream, in batches, waiting for the stream to drain when it asks to. */
class Writer {
  parts = [];
  size = 0;
  static async open(path, flags) {
    const writer = new Writer();
    writer.stream = createWriteStream(path, { flags, highWaterMark: 4 * BATCH });
    await once(writer.stream, 'ready');
    return writer;
  }
  async write(...chunks) {
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      this.parts.push(bytes);
      this.size += bytes.length;
    }
    if (this.size >= BATCH) await this.flush();
  }
  async flush() {
    if (!this.size) return;
    const ok = this.stream.write(Buffer.concat(this.parts, this.size));
    this.parts = [];
    this.size = 0;
    if (!ok) await once(this.stream, 'drain');
  }
  async close() {
    await this.flush();
    await new Promise((resolve, reject) => {
      this.stream.once('close', resolve).once('error', reject);
      this.stream.end();
    });
  }
}
let journal;

const END = Buffer.from('}\n');
/** A put line: these three pieces, the value's bytes as they are kept. */
const putLine = (key, bytes) => [`{"put":${JSON.stringify(key)},"value":`, bytes, END];
const checkpointLine = () => `${JSON.stringify(state.export ? { export: state.export } : { cursor: state.cursor })}\n`;
const hasCheckpoint = () => Boolean(state.export || state.cursor);
/** Lines of the journal that no longer say anything: superseded puts, deletes, older checkpoints. */
const deadLines = () => state.lines - state.objects.size - (hasCheckpoint() ? 1 : 0);

async function put(key, value) {
  const bytes = Buffer.from(JSON.stringify(value));
  const created = !state.objects.has(key);
  state.objects.set(key, bytes);
  await journal.write(...putLine(key, bytes));
  state.lines++;
  return created;
}

async function remove(key) {
  if (!state.objects.delete(key)) return false;
  await journal.write(`${JSON.stringify({ delete: key })}\n`);
  state.lines++;
  return true;
}

/** Appended after the lines of what it covers (one stream keeps their order), then handed to the file. */
async function checkpoint() {
  await journal.write(checkpointLine());
  state.lines++;
  await journal.flush();
}

const PUT = Buffer.from('{"put":"');
const VALUE = Buffer.from(',"value":');
/** One whole line of the journal (its bytes, without the newline), applied to the state. */
function replay(line) {
  if (!line.length) return;
  // The put lines this script writes are read without parsing: the value's bytes are kept as they are.
  const end = line.indexOf(0x22, PUT.length); // the key's closing quote
  const fast =
    end > 0 &&
    end + 1 + VALUE.length < line.length &&
    line.compare(PUT, 0, PUT.length, 0, PUT.length) === 0 &&
    !line.subarray(PUT.length, end).includes(0x5c) && // no escape in the key
    line.compare(VALUE, 0, VALUE.length, end + 1, end + 1 + VALUE.length) === 0 &&
    line[line.length - 1] === 0x7d;
  if (fast) {
    state.objects.set(line.toString('utf8', PUT.length, end), Buffer.from(line.subarray(end + 1 + VALUE.length, line.length - 1)));
  } else {
    let entry;
    try {
      entry = JSON.parse(line.toString('utf8'));
    } catch {
      throw new Error(`${args.state}: line ${state.lines + 1} is damaged (not JSON); only a last line may be cut`);
    }
    if ('put' in entry) state.objects.set(entry.put, Buffer.from(JSON.stringify(entry.value)));
    else if ('delete' in entry) state.objects.delete(entry.delete);
    else if ('export' in entry) state.export = entry.export;
    else if ('cursor' in entry) [state.cursor, state.export] = [entry.cursor, null];
    else throw new Error(`${args.state}: line ${state.lines + 1} is not a journal line`);
  }
  state.lines++;
}

/**
 * Replays the journal, then opens it for appending: a last line cut by a crash is truncated away
 * first. A state file of the earlier format (one JSON document) is read and rewritten as a journal.
 */
async function load(path) {
  let whole = 0; // bytes of whole lines
  let read = 0;
  let tail = []; // the bytes after the last newline
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: BATCH })) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        replay(tail.length ? Buffer.concat([...tail, piece]) : piece);
        tail = [];
        start = nl + 1;
      }
      if (start) whole = read + start;
      if (start < chunk.length) tail.push(chunk.subarray(start));
      read += chunk.length;
    }
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  let earlier = null;
  if (tail.length && !state.lines) {
    try {
      earlier = JSON.parse(Buffer.concat(tail).toString('utf8'));
    } catch {
      earlier = null; // a first line cut by a crash
    }
  }
  if (earlier?.objects) {
    [state.cursor, state.export] = [earlier.cursor, earlier.export];
    for (const [key, value] of Object.entries(earlier.objects)) state.objects.set(key, Buffer.from(JSON.stringify(value)));
    return compact();
  }
  if (!hasCheckpoint() && state.lines) {
    // Nothing was checkpointed: a run from scratch, whose objects are no base to resume from.
    state.objects.clear();
    state.lines = 0;
    whole = 0;
  }
  if (whole < read) await truncate(path, whole);
  if (state.lines > 2 * (state.objects.size + 1)) return compact();
  journal = await Writer.open(path, 'a');
}

/** Hands what was written to a file (or a directory's entries) to the disk. */
async function fsync(path, flags) {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the live objects and the last checkpoint to <path>.tmp, syncs it and renames it over the journal. */
async function compact() {
  if (journal) await journal.close();
  const tmp = `${args.state}.tmp`;
  const writer = await Writer.open(tmp, 'w');
  for (const [key, bytes] of state.objects) await writer.write(...putLine(key, bytes));
  if (hasCheckpoint()) await writer.write(checkpointLine());
  await writer.close();
  await fsync(tmp, 'r+');
  await rename(tmp, args.state);
  await fsync(dirname(args.state), 'r').catch(() => {}); // the rename, where a directory can be synced
  state.lines = state.objects.size + (hasCheckpoint() ? 1 : 0);
  journal = await Writer.open(args.state, 'a');
}

const readable = (type) => scopes.includes(COLLECTIONS[type].scope);
const withContent = (type) => COLLECTIONS[type].content && scopes.includes(COLLECTIONS[type].content);
const partsOf = (type) =>
  type === 'meeting' || type === 'call'
    ? ['evaluation', 'answers', ...(scopes.includes('transcriptions.read') ? ['transcript'] : [])]
    : withContent(type)
      ? ['messages']
      : [];

/** Stores one record as the copy keeps it (its included parts beside its details); returns whether it was new. */
async function store(type, record) {
  const { included, ...details } = record;
  const copy = { object: type, id: record.id, parent_id: null, details };
  if (type === 'meeting' || type === 'call') Object.assign(copy, included ?? {});
  const created = await put(`${type}:${record.id}`, copy);
  if (included?.messages) {
    for (const message of included.messages) {
      await put(`${type}_message:${message.id}`, { object: `${type}_message`, id: message.id, parent_id: record.id, details: message });
    }
  }
  return created;
}

/**
 * The first copy: one export of every readable collection with every part, resumed after the
 * last stored id when a stream is cut; the first Feed-Cursor is kept. Null when the service has
 * no export (then the feed from the beginning does the backfill).
 */
async function exportAll(applied) {
  if (!token) await authenticate(); // the token's scopes decide what to export
  const streams = exportStreams();
  if (!streams.length) return null;
  for (;;) {
    const stream = streams[state.export?.stream ?? 0];
    const query = new URLSearchParams({ types: stream.types.join(',') });
    if (stream.include.length) query.set('include', stream.include.join(','));
    if (state.export?.after) query.set('after', state.export.after);
    const res = await request(`/v1/export?${query}`, { allowForbidden: true });
    if (res.status !== 200) return null;
    if (!state.export) {
      state.export = { feed_cursor: res.headers.get('feed-cursor'), after: null, stream: 0 };
      await checkpoint(); // the first Feed-Cursor, before any record: a restart that replays them keeps it
    }
    let trailer = null;
    let since = 0;
    let at = Date.now();
    try {
      for await (const line of createInterface({ input: Readable.fromWeb(res.body), crlfDelay: Infinity })) {
        if (!line) continue;
        const record = JSON.parse(line);
        if (record.object === 'export') {
          trailer = record;
          break;
        }
        if (await store(TYPE_OF_OBJECT[record.object], record)) applied.created++;
        applied.exported++;
        state.export.after = record.id;
        if (++since >= 1000 || Date.now() - at >= 1000) {
          await checkpoint(); // a cut stream, or a restart, resumes from here
          since = 0;
          at = Date.now();
        }
      }
    } catch (error) {
      process.stderr.write(`export cut (${error.message}); resuming after ${state.export.after}\n`);
    }
    if (trailer && (state.export.stream ?? 0) + 1 < streams.length) {
      state.export = { ...state.export, after: null, stream: (state.export.stream ?? 0) + 1 }; // the next stream, same first Feed-Cursor
    } else if (trailer) {
      state.cursor = state.export.feed_cursor; // the first one: a later one could skip what the first snapshot missed
      state.export = null;
      await checkpoint();
      return true;
    }
    await checkpoint();
  }
}

/**
 * The export streams of a first copy: one, unless the token reads one channel's messages and not
 * the other's (the export applies `include` to every collection that has the part, and a part the
 * token cannot read is 403): then the channel without its content scope comes in a stream of its
 * own, after the first, whose Feed-Cursor stays the copy's.
 */
function exportStreams() {
  const types = Object.keys(COLLECTIONS).filter(readable);
  const bare = types.filter((type) => COLLECTIONS[type].content && !withContent(type));
  const full = types.filter((type) => !bare.includes(type));
  const streams = [{ types: full, include: [...new Set(full.flatMap(partsOf))] }];
  if (bare.length && full.some((type) => partsOf(type).includes('messages'))) streams.push({ types: bare, include: [] });
  else streams[0] = { types, include: streams[0].include };
  return streams.filter((stream) => stream.types.length);
}

/**
 * Fetches what one page of feed entries names and applies it. Each collection's objects come in
 * batches of up to 100 with `ids` + `include`; a message entry fetches its conversation with
 * `include=messages` (one request per 100 conversations, not one per conversation). Everything
 * that came back is stored; a named object or message that did not come back (absent from its
 * collection, or from its conversation's messages) is deleted, unless the page stored it under
 * another conversation (a message moved).
 */
async function applyPage(entries, applied) {
  const wanted = new Map(); // type → ids to fetch
  const named = new Set(); // the keys the entries name
  for (const e of entries) {
    const message = e.object.endsWith('_message');
    const type = message ? e.object.slice(0, -'_message'.length) : e.object;
    if (!wanted.has(type)) wanted.set(type, new Set());
    wanted.get(type).add(message ? e.parent_id : e.object_id);
    named.add(`${e.object}:${e.object_id}`);
  }
  const stored = new Set();
  for (const [type, idSet] of wanted) {
    const ids = [...idSet];
    const include = partsOf(type);
    for (let i = 0; i < ids.length; i += 100) {
      const batch = ids.slice(i, i + 100);
      const found = (await all(`${COLLECTIONS[type].path}?ids=${batch.join(',')}${include.length ? `&include=${include.join(',')}` : ''}`)) ?? [];
      applied.fetched += found.length;
      for (const record of found) {
        if (await store(type, record)) applied.created++;
        else applied.updated++;
        stored.add(`${type}:${record.id}`);
        for (const m of record.included?.messages ?? []) stored.add(`${type}_message:${m.id}`);
      }
    }
  }
  for (const key of named) {
    if (!stored.has(key) && (await remove(key))) applied.deleted++;
  }
}

/** Feed entries read before what they name is fetched: the fewer fetches, the more entries name the same objects. */
const ENTRIES_PER_APPLY = 1000;

/**
 * Reads the feed until it is up to date: up to ENTRIES_PER_APPLY entries (ten pages) at a time,
 * then fetches and applies what they name, then stores the cursor after them (apply first, store
 * second: a crash repeats those pages, never loses one).
 */
async function catchUp() {
  const applied = { pages: 0, entries: 0, exported: 0, created: 0, updated: 0, deleted: 0, fetched: 0 };
  if (!state.cursor) await exportAll(applied);
  for (;;) {
    const entries = [];
    let cursor = state.cursor;
    let more;
    do {
      const page = await get(`/v1/changes?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      entries.push(...page.data);
      cursor = page.pagination.next_cursor;
      more = page.pagination.has_more;
      applied.pages++;
    } while (more && entries.length < ENTRIES_PER_APPLY);
    await applyPage(entries, applied);
    applied.entries += entries.length;
    if (cursor !== state.cursor || state.export) {
      [state.cursor, state.export] = [cursor, null];
      await checkpoint();
    }
    if (!more) return applied;
  }
}

await load(args.state);
let stopping = false;
process.on('SIGINT', () => (stopping = true));
process.on('SIGTERM', () => (stopping = true));
do {
  requests = 0;
  const applied = await catchUp();
  process.stdout.write(`${JSON.stringify({ ...applied, requests, objects: state.objects.size })}\n`);
  if (args.follow && !stopping) {
    if (state.lines > 2 * (state.objects.size + 1)) await compact(); // a long follow keeps the journal small
    await new Promise((r) => setTimeout(r, Number(args.interval) * 1000));
  }
} while (args.follow && !stopping);
if (deadLines() > 0) await compact();
await journal.close();
