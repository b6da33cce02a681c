#!/usr/bin/env node
// Keeps a complete, current copy of a company's conversations in a local file, with the SDK
// (@conversation-read-api/sdk, in sdk/ of this repository): one export stream for the first copy,
// then the change feed from the export's Feed-Cursor, fetching what the entries name in batches of
// up to 100 with `ids` + `include`, applying them, then storing the cursor. Node 20 or later.
//
//   BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… node examples/sync.mjs --state copy.json [--follow] [--interval 5]
//
// The copy holds, per object, what its routes answer: a meeting or call's details, evaluation,
// answers and transcript (the transcript needs transcriptions.read); a conversation's details;
// each message (with the content scope). Keys are `type:id` (meeting, call, email, chat,
// email_message, chat_message; a message's parent_id is its conversation). The file is the SDK's
// JsonFileStore: an append-only journal of JSON lines, a checkpoint appended only after the lines
// it covers, so a crash (even SIGKILL) at any point repeats work and never loses any.
//
// It prints one JSON line per catch-up: what it applied and how many requests it took.
import { parseArgs } from 'node:util';
import { ConversationApi, JsonFileStore } from '@conversation-read-api/sdk';

const { values: args } = parseArgs({
  options: {
    state: { type: 'string', default: 'conversation-copy.json' },
    follow: { type: 'boolean', default: false },
    interval: { type: 'string', default: '5' },
  },
});
const { BASE_URL = 'http://localhost:3000', CLIENT_ID, CLIENT_SECRET } = process.env;
if (!CLIENT_ID || !CLIENT_SECRET) {
  process.stderr.write('set CLIENT_ID and CLIENT_SECRET (and BASE_URL)\n');
  process.exit(2);
}

const api = new ConversationApi({ baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
const store = await JsonFileStore.open(args.state);

// SIGINT / SIGTERM stop the sync at its next safe point; the journal then holds the last checkpoint.
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

await api.sync(store, {
  follow: args.follow,
  interval: Number(args.interval) * 1000,
  signal: stop.signal,
  onRound: ({ phase: _phase, lag: _lag, ...round }) => process.stdout.write(`${JSON.stringify({ ...round, objects: store.size })}\n`),
});
await store.close();
