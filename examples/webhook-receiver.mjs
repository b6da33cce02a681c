#!/usr/bin/env node
// A webhook receiver that keeps an exact copy: it verifies each event's signature with the
// `standardwebhooks` package, answers 204 at once, and then catches up from the change feed
// (examples/sync.mjs, from the cursor stored in the copy), so an event that never came, came
// twice or came out of order changes nothing: the webhook says when, the feed says what.
//
//   npm install standardwebhooks      (already a dev dependency of this repository)
//   WEBHOOK_SECRET=whsec_… BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=secret_… \
//     node examples/webhook-receiver.mjs --port 4000 --state copy.json
//
// Register it with `npm run cli -- webhooks:add --company cmp_… --url https://your-host/hooks`
// (plain http and private addresses need WEBHOOK_ALLOW_PRIVATE=1 on the service, for development).
// It prints one JSON line per event and one per catch-up.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '4000' },
    state: { type: 'string', default: 'conversation-copy.json' },
  },
});
if (!process.env.WEBHOOK_SECRET?.startsWith('whsec_')) {
  process.stderr.write('set WEBHOOK_SECRET (the whsec_… printed by webhooks:add), and BASE_URL, CLIENT_ID, CLIENT_SECRET for the feed\n');
  process.exit(2);
}
const webhook = new Webhook(process.env.WEBHOOK_SECRET);
const sync = join(dirname(fileURLToPath(import.meta.url)), 'sync.mjs');

// One catch-up at a time; events arriving meanwhile ask for one more after it.
let running = null;
let again = false;
function catchUp() {
  if (running) {
    again = true;
    return;
  }
  running = new Promise((resolve) => {
    const child = spawn(process.execPath, [sync, '--state', args.state], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', resolve);
  }).then(() => {
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
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      // Checks the signature over id, timestamp and the raw body, and that the timestamp is recent (replays refused).
      event = webhook.verify(body, req.headers);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ refused: error.message })}\n`);
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end(); // answer first: a slow receiver only delays itself, but answers within 10 s count
    process.stdout.write(`${JSON.stringify({ event: event.type, change_id: event.data.change_id, object_id: event.data.object_id })}\n`);
    catchUp();
  });
});
server.listen(Number(args.port), () => {
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`);
  catchUp(); // whatever happened while it was down
});
