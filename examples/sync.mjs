#!/usr/bin/env node
// Keeps a complete, current copy of a company's conversations in a JSON file, the fast way:
// one export stream for the first copy (resumed with `after=` if it is cut), then the change
// feed from the export's Feed-Cursor, fetching what each page of entries names in batches of up
// to 100 with `ids` + `include` (ids that do not come back are deleted), applying the page, then
// storing the feed's cursor. Node 20 or later, no dependencies.
//
//   BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… node examples/sync.mjs --state copy.json [--follow] [--interval 5]
//
// The copy holds, per object, what its routes answer: a meeting or call's details, evaluation,
// answers and transcript (the transcript needs transcriptions.read); a conversation's details;
// each message (with the content scope). It prints one JSON line per run: what it applied.
import { readFile, rename, writeFile } from 'node:fs/promises';
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

async function load(path) {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return { cursor: null, export: null, objects: {} };
    throw error;
  }
}

/** Written whole and renamed into place: the file is always a consistent copy. */
async function save(path, state) {
  await writeFile(`${path}.tmp`, JSON.stringify(state));
  await rename(`${path}.tmp`, path);
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
function store(state, type, record) {
  const { included, ...details } = record;
  const key = `${type}:${record.id}`;
  const created = !(key in state.objects);
  const copy = { object: type, id: record.id, parent_id: null, details };
  if (type === 'meeting' || type === 'call') Object.assign(copy, included ?? {});
  state.objects[key] = copy;
  if (included?.messages) {
    for (const message of included.messages) {
      state.objects[`${type}_message:${message.id}`] = { object: `${type}_message`, id: message.id, parent_id: record.id, details: message };
    }
  }
  return created;
}

/**
 * The first copy: one export of every readable collection with every part, resumed after the
 * last stored id when a stream is cut; the first Feed-Cursor is kept. Null when the service has
 * no export (then the feed from the beginning does the backfill).
 */
async function exportAll(state, applied) {
  if (!token) await authenticate(); // the token's scopes decide what to export
  const types = Object.keys(COLLECTIONS).filter(readable);
  const include = [...new Set(types.flatMap(partsOf))];
  for (;;) {
    const query = new URLSearchParams({ types: types.join(',') });
    if (include.length) query.set('include', include.join(','));
    if (state.export?.after) query.set('after', state.export.after);
    const res = await request(`/v1/export?${query}`, { allowForbidden: true });
    if (res.status !== 200) return null;
    state.export ??= { feed_cursor: res.headers.get('feed-cursor'), after: null };
    let trailer = null;
    let since = 0;
    try {
      for await (const line of createInterface({ input: Readable.fromWeb(res.body), crlfDelay: Infinity })) {
        if (!line) continue;
        const record = JSON.parse(line);
        if (record.object === 'export') {
          trailer = record;
          break;
        }
        if (store(state, TYPE_OF_OBJECT[record.object], record)) applied.created++;
        applied.exported++;
        state.export.after = record.id;
        if (++since >= 1000) {
          await save(args.state, state); // a cut stream resumes from here
          since = 0;
        }
      }
    } catch (error) {
      process.stderr.write(`export cut (${error.message}); resuming after ${state.export.after}\n`);
    }
    if (trailer) {
      state.cursor = state.export.feed_cursor; // the first one: a later one could skip what the first snapshot missed
      state.export = null;
      await save(args.state, state);
      return true;
    }
  }
}

/** Fetches what one page of feed entries names, with ids + include, and applies it: present is stored, absent is deleted. */
async function applyPage(state, entries, applied) {
  const named = new Map(); // type → ids; `${type}_message` → conversation → ids
  for (const e of entries) {
    const group = e.object.endsWith('_message') ? `${e.object}:${e.parent_id}` : e.object;
    if (!named.has(group)) named.set(group, new Set());
    named.get(group).add(e.object_id);
  }
  for (const [group, idSet] of named) {
    const ids = [...idSet];
    const [object, conversation] = group.split(':');
    const type = object.replace('_message', '');
    for (let i = 0; i < ids.length; i += 100) {
      const batch = ids.slice(i, i + 100);
      const path = conversation
        ? `${COLLECTIONS[type].path}/${conversation}/messages?ids=${batch.join(',')}`
        : `${COLLECTIONS[type].path}?ids=${batch.join(',')}${partsOf(type).filter((p) => p !== 'messages').length ? `&include=${partsOf(type).filter((p) => p !== 'messages').join(',')}` : ''}`;
      // A 404 here is a conversation gone with its messages: every id of the batch is deleted.
      const found = (await all(path)) ?? [];
      applied.fetched += found.length;
      const present = new Set(found.map((r) => r.id));
      for (const record of found) {
        if (conversation) {
          const key = `${object}:${record.id}`;
          if (key in state.objects) applied.updated++;
          else applied.created++;
          state.objects[key] = { object, id: record.id, parent_id: conversation, details: record };
        } else if (store(state, type, record)) applied.created++;
        else applied.updated++;
      }
      for (const id of batch.filter((id) => !present.has(id))) {
        const key = `${object}:${id}`;
        if (key in state.objects) applied.deleted++;
        delete state.objects[key];
      }
    }
  }
}

/** Reads the feed until it is up to date; stores the cursor after each applied page. */
async function catchUp(state) {
  const applied = { pages: 0, entries: 0, exported: 0, created: 0, updated: 0, deleted: 0, fetched: 0 };
  if (!state.cursor) await exportAll(state, applied);
  for (;;) {
    const page = await get(`/v1/changes?limit=100${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`);
    await applyPage(state, page.data, applied);
    state.cursor = page.pagination.next_cursor; // apply first, store second: a crash repeats a page, never loses one
    await save(args.state, state);
    applied.pages++;
    applied.entries += page.data.length;
    if (!page.pagination.has_more) return applied;
  }
}

const state = await load(args.state);
let stopping = false;
process.on('SIGINT', () => (stopping = true));
process.on('SIGTERM', () => (stopping = true));
do {
  requests = 0;
  const applied = await catchUp(state);
  process.stdout.write(`${JSON.stringify({ ...applied, requests, objects: Object.keys(state.objects).length })}\n`);
  if (args.follow && !stopping) await new Promise((r) => setTimeout(r, Number(args.interval) * 1000));
} while (args.follow && !stopping);
