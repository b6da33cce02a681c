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
// (plain http and private addresses need WEBHOOK_ALLOW_PRIVATE=1 on the service, for development),
// or let it register itself through the API (its client needs `webhooks.manage`), no WEBHOOK_SECRET:
//
//   BASE_URL=… CLIENT_ID=cli_… CLIENT_SECRET=secret_… \
//     node examples/webhook-receiver.mjs --port 4000 --state copy.json --register https://your-host/hooks
//
// (or REGISTER_URL=https://your-host/hooks). It then verifies with the secret the registration
// returned, kept beside the state (`<state>.endpoint.json`, mode 600), and a restart reuses that
// endpoint: it never registers twice. Without that file, an endpoint of the client's company with
// the same URL is reused (WEBHOOK_SECRET must then be its secret, unless it was created in the last
// 23 hours: the create's Idempotency-Key, derived from the URL, answers the first answer again,
// secret included); otherwise it is created with that key.
// It prints one JSON line per event and one per catch-up.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { ApiError, ConversationApi, JsonFileStore, verifyWebhook } from '@conversation-read-api/sdk';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '4000' },
    state: { type: 'string', default: 'conversation-copy.json' },
    register: { type: 'string', default: process.env.REGISTER_URL },
  },
});
let secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
const { BASE_URL = 'http://localhost:3000', CLIENT_ID, CLIENT_SECRET } = process.env;
if ((!args.register && !secrets.length) || !secrets.every((s) => s.startsWith('whsec_')) || !CLIENT_ID || !CLIENT_SECRET) {
  process.stderr.write(
    'set WEBHOOK_SECRET (the whsec_… printed by webhooks:add) or --register <public-url>, and BASE_URL, CLIENT_ID, CLIENT_SECRET for the feed\n',
  );
  process.exit(2);
}
const api = new ConversationApi({ baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
if (args.register) secrets = await register(args.register);
const store = await JsonFileStore.open(args.state);

/**
 * The endpoint at `url`, registered once however often this process starts: the secrets to verify
 * with. What was registered is kept in `<state>.endpoint.json` (the secret is shown only once).
 */
async function register(url) {
  const file = `${args.state}.endpoint.json`;
  const saved = JSON.parse(await readFile(file, 'utf8').catch(() => 'null'));
  const save = (endpoint, secret) => writeFile(file, JSON.stringify({ endpoint_id: endpoint.id, url, secret }), { mode: 0o600 });
  const say = (how, endpoint, from) => print({ registered: endpoint.id, url, how, verifying_with: from });
  if (saved?.url === url) {
    try {
      const endpoint = await api.webhookEndpoints.get(saved.endpoint_id);
      say('reused', endpoint, `the secret saved in ${file}`);
      return [saved.secret, ...secrets];
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'RESOURCE_NOT_FOUND')) throw error;
      // Deleted meanwhile: register again.
    }
  }
  const body = { url, description: 'examples/webhook-receiver.mjs' };
  // The same URL, the same key: a create repeated within 24 h answers the first answer again.
  const idempotencyKey = `webhook-receiver:${createHash('sha256').update(url).digest('hex')}`;
  let existing = null;
  for await (const endpoint of api.webhookEndpoints.list({ limit: 100 })) if (endpoint.url === url) existing = endpoint;
  if (existing && secrets.length) {
    say('reused', existing, 'WEBHOOK_SECRET');
    return secrets;
  }
  if (existing && Date.now() - Date.parse(existing.created_at) > 23 * 3600_000) {
    process.stderr.write(
      `${existing.id} already receives ${url} and this receiver does not have its secret: set WEBHOOK_SECRET, or delete or rotate it\n`,
    );
    process.exit(2);
  }
  const created = await api.webhookEndpoints.create(body, { idempotencyKey });
  await save(created, created.secret);
  say(existing?.id === created.id ? 'recovered' : 'created', created, 'the secret its registration returned');
  if (existing && existing.id !== created.id) print({ warning: `${existing.id} (not this client's registration) receives ${url} too` });
  return [created.secret];
}

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
    if (event.type === 'webhook.test') {
      // A test event (POST …/test) names no change: nothing to catch up.
      print({ event: event.type, endpoint_id: event.data.endpoint_id, verified: true });
      return;
    }
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
