#!/usr/bin/env node
// Keeps a complete, current copy of a company's conversations in a JSON file, through the
// change feed: read the feed from the stored cursor, fetch what each entry names, apply it,
// store the cursor, repeat. Node 20 or later, no dependencies.
//
//   BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… node examples/sync.mjs --state copy.json [--follow] [--interval 5]
//
// The copy holds, per object, what its routes answer: a meeting or call's details, evaluation,
// answers and transcript (the transcript needs transcriptions.read); a conversation's details;
// each message. It prints one JSON line per run: what it applied.
import { readFile, rename, writeFile } from 'node:fs/promises';
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

/** Where each object type's routes are, and which parts it has. */
const ROUTES = {
  meeting: { path: (e) => `/v1/meetings/${e.object_id}`, parts: ['details', 'evaluation', 'answers', 'transcript'] },
  call: { path: (e) => `/v1/calls/${e.object_id}`, parts: ['details', 'evaluation', 'answers', 'transcript'] },
  email: { path: (e) => `/v1/emails/${e.object_id}`, parts: ['details'] },
  chat: { path: (e) => `/v1/chat/${e.object_id}`, parts: ['details'] },
  email_message: { path: (e) => `/v1/emails/${e.parent_id}/messages/${e.object_id}`, parts: ['details'] },
  chat_message: { path: (e) => `/v1/chat/${e.parent_id}/messages/${e.object_id}`, parts: ['details'] },
};
const PART_SUFFIX = { details: '', evaluation: '/evaluations/overall', answers: '/answers', transcript: '/transcript' };

let token;
let scopes = [];

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

/** GET a route: the body, or null on 404; a new token on 401; waits out 429 and 503. */
async function get(path) {
  for (let attempt = 0; ; attempt++) {
    if (!token) await authenticate();
    const res = await fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    if (res.status === 200) return res.json();
    if (res.status === 404) return null;
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

async function load(path) {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return { cursor: null, objects: {} };
    throw error;
  }
}

/** Written whole and renamed into place: the file is always a consistent copy. */
async function save(path, state) {
  await writeFile(`${path}.tmp`, JSON.stringify(state));
  await rename(`${path}.tmp`, path);
}

/** Applies one entry to the copy; counts what it did in `applied`. */
async function apply(state, entry, applied) {
  const key = `${entry.object}:${entry.object_id}`;
  const route = ROUTES[entry.object];
  if (entry.action === 'deleted') {
    if (key in state.objects) applied.deleted++;
    delete state.objects[key];
    return;
  }
  // created: every part; updated: the parts named (a conversation's `messages`: its messages have entries of their own).
  const wanted = entry.action === 'created' ? route.parts : entry.changed.filter((p) => route.parts.includes(p));
  const parts = wanted.filter((p) => p !== 'transcript' || scopes.includes('transcriptions.read'));
  const copy = state.objects[key] ?? { object: entry.object, id: entry.object_id, parent_id: entry.parent_id };
  for (const part of parts.includes('details') ? ['details', ...parts.filter((p) => p !== 'details')] : parts) {
    const body = await get(`${route.path(entry)}${PART_SUFFIX[part]}`);
    applied.fetched++;
    if (body === null) {
      // Gone since the entry was written: a later entry says deleted; drop it now.
      if (key in state.objects) applied.deleted++;
      delete state.objects[key];
      return;
    }
    copy[part] = body.data;
  }
  if (!(key in state.objects)) applied.created++;
  else applied.updated++;
  state.objects[key] = copy;
}

/** Reads the feed until it is up to date; stores the cursor after each applied page. */
async function catchUp(state) {
  const applied = { pages: 0, entries: 0, created: 0, updated: 0, deleted: 0, fetched: 0 };
  for (;;) {
    const page = await get(`/v1/changes?limit=100${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`);
    for (const entry of page.data) await apply(state, entry, applied);
    state.cursor = page.pagination.next_cursor;
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
  const applied = await catchUp(state);
  process.stdout.write(`${JSON.stringify({ ...applied, objects: Object.keys(state.objects).length })}\n`);
  if (args.follow && !stopping) await new Promise((r) => setTimeout(r, Number(args.interval) * 1000));
} while (args.follow && !stopping);
