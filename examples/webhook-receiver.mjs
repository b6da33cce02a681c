#!/usr/bin/env node
// A webhook receiver that keeps an exact copy, with the SDK (@conversation-read-api/sdk, in sdk/ of
// this repository): it verifies each event with `verifyWebhook` (Standard Webhooks), answers 204 at
// once, and then catches up from the change feed with `api.sync` into the same journal file as
// examples/sync.mjs, so an event that never came, came twice or came out of order changes nothing:
// the webhook says when, the feed says what. (The event's own `cursor` points just after its
// change; the copy's stored cursor is at or before it, so catching up from the store covers it and
// everything the receiver missed.)
//
//   WEBHOOK_SECRET=whsec_… BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… \
//     node examples/webhook-receiver.mjs --port 4000 --state copy.json
//
// During a secret rotation set both: WEBHOOK_SECRET=whsec_new,whsec_old (either verifying is enough).
// Register it with `npm run cli -- webhooks:add --company cmp_… --url https://your-host/hooks`
// (plain http and private addresses need WEBHOOK_ALLOW_PRIVATE=1 on the service, for development).
// It prints one JSON line per event and one per catch-up.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { ConversationApi, JsonFileStore, verifyWebhook } from '@conversation-read-api/sdk';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '4000' },
    state: { type: 'string', default: 'conversation-copy.json' },
  },
});
const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
const { BASE_URL = 'http://localhost:3000', CLIENT_ID, CLIENT_SECRET } = process.env;
if (!secrets.length || !secrets.every((s) => s.startsWith('whsec_')) || !CLIENT_ID || !CLIENT_SECRET) {
  process.stderr.write('set WEBHOOK_SECRET (the whsec_… printed by webhooks:add), and BASE_URL, CLIENT_ID, CLIENT_SECRET for the feed\n');
  process.exit(2);
}
const api = new ConversationApi({ baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
const store = await JsonFileStore.open(args.state);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

// One catch-up at a time; events arriving meanwhile ask for one more after it.
let running = null;
let again = false;
function catchUp() {
  if (running) {
    again = true;
    return;
  }
  running = api
    .sync(store, { onRound: ({ phase: _phase, lag: _lag, ...round }) => print({ ...round, objects: store.size }) })
    .catch((error) => print({ catch_up_failed: error.message }))
    .then(() => {
      running = null;
      if (again) {
        again = false;
        catchUp();
      }
    });
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let event;
    try {
      // The signature over id, timestamp and the raw body, and a recent timestamp (replays refused).
      event = verifyWebhook(req.headers, Buffer.concat(chunks), secrets);
    } catch (error) {
      print({ refused: error.message });
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end(); // answer first: only answers within 10 s count
    print({ event: event.type, change_id: event.data.change_id, object_id: event.data.object_id });
    catchUp();
  });
});
server.listen(Number(args.port), () => {
  print({ listening: server.address().port });
  catchUp(); // whatever happened while it was down
});

async function shutdown() {
  server.close();
  await running;
  await store.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
