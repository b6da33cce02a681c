import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { runCli } from '../support/cli';
import { differences } from '../support/full-read';
import { Journal, readJournal } from '../support/sync-journal';
import { expectCompacted, SYNC_SCRIPT, syncExample } from '../support/sync-example';
import { eventually, sleep } from '../support/test-app';

/**
 * examples/sync.mjs interrupted as a real integration is: SIGKILLed in the middle of its export
 * (a torn last line in its journal) and in the middle of applying a page of the feed, then
 * restarted; and run by a client whose scopes leave some messages out. Each copy ends equal to a
 * full read of what the client may read (sync-example.e2e-spec.ts has the uninterrupted run).
 */
describe('examples/sync.mjs, killed and restarted', () => {
  const example = syncExample();
  const { env, fullRead, sync, syncAs } = example;

  /**
   * A proxy in front of the app that passes every request through, except the first export when
   * `dripExport`: it sends that one's records one every 50 ms and holds back the last five and the
   * trailer, so the example is still exporting when the test kills it (`ids`: that export's records,
   * in order); and the requests `hang` picks, which it never answers (`held`: their URLs).
   */
  async function drippingProxy(
    options: { dripExport: boolean; hang?: (url: string) => boolean } = { dripExport: true },
  ): Promise<{ url: string; ids: string[]; held: string[]; close: () => Promise<void> }> {
    const ids: string[] = [];
    const held: string[] = [];
    let dripped = !options.dripExport;
    const server = createServer((req, res) => {
      void (async () => {
        if (options.hang?.(req.url!)) {
          held.push(req.url!);
          return; // never answered: the example waits for it until it is killed
        }
        let body = '';
        for await (const chunk of req) body += chunk;
        const upstream = await fetch(`${example.base}${req.url}`, {
          method: req.method,
          headers: Object.fromEntries(
            ['authorization', 'content-type'].flatMap((h) => (req.headers[h] ? [[h, String(req.headers[h])]] : [])),
          ),
          body: body || undefined,
        });
        const headers = Object.fromEntries(
          ['content-type', 'feed-cursor', 'retry-after'].flatMap((h) => (upstream.headers.get(h) ? [[h, upstream.headers.get(h)!]] : [])),
        );
        const text = await upstream.text();
        res.writeHead(upstream.status, headers);
        if (!req.url!.startsWith('/v1/export') || dripped || upstream.status !== 200) {
          res.end(text);
          return;
        }
        dripped = true;
        const records = text.split('\n').filter(Boolean).slice(0, -1); // without the trailer
        ids.push(...records.map((line) => (JSON.parse(line) as { id: string }).id));
        for (const line of records.slice(0, -5)) {
          if (res.destroyed) return;
          res.write(`${line}\n`);
          await sleep(50);
        }
        // The rest is held back: the example waits for it until it is killed.
      })().catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      ids,
      held,
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('killed (SIGKILL) in the middle of its export, with a torn last line, resumes after its checkpoint on restart and ends with zero differences [waits]', async () => {
    const path = join(process.env.TEST_ROOT!, `sync-killed-${process.pid}.json`);
    const proxy = await drippingProxy();
    let killedAt: Journal;
    try {
      const example = spawn(process.execPath, [SYNC_SCRIPT, '--state', path], { env: { ...env(), BASE_URL: proxy.url }, stdio: 'ignore' });
      const exited = new Promise((resolve) => example.once('exit', resolve));
      // Killed once a checkpoint past some records is in the journal (the example checkpoints every second).
      await eventually(async () => Boolean((await readJournal(path).catch(() => null))?.export?.after), 30_000);
      example.kill('SIGKILL');
      await exited;
      killedAt = await readJournal(path);
    } finally {
      await proxy.close();
    }
    // Killed while exporting: the first Feed-Cursor and the last stored id, no feed cursor yet.
    expect(killedAt.cursor).toBeNull();
    expect(killedAt.export).toMatchObject({ feed_cursor: expect.stringMatching(/^cur_/), after: expect.any(String) });
    const position = proxy.ids.indexOf(killedAt.export!.after!);
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThan(proxy.ids.length - 5);
    // A write the kill cut in the middle of a line.
    await appendFile(path, '{"put":"meeting:mtg_torn","value":{"object":"meet');

    const [resumed] = await sync(path);
    // The export resumed after the checkpoint's id (no writer runs now: the same records), then the feed.
    expect(resumed.exported).toBe(proxy.ids.length - position - 1);
    expect(resumed.requests).toBeLessThan(10);
    const copy = await readJournal(path);
    expectCompacted(copy);
    expect(resumed.objects).toBe(Object.keys(copy.objects).length);
    expect(differences(copy.objects, await fullRead())).toEqual([]);
  });

  it('killed (SIGKILL) in the middle of applying a page of the feed keeps its cursor, and on restart ends with zero differences [waits]', async () => {
    const path = join(process.env.TEST_ROOT!, `sync-killed-feed-${process.pid}.json`);
    await sync(path);
    const before = await readJournal(path);
    expect(before.cursor).toMatch(/^cur_/);
    // Changes to every collection, for the feed after the copy.
    const activity = await runCli(
      {},
      'seed:activity',
      '--company',
      example.demo.company_id,
      '--minutes',
      '0.05',
      '--rate',
      '1200',
      '--seed',
      '9',
      '--json',
    );
    expect(activity.code).toBe(0);
    // The second batch fetched by `ids` is never answered: the first was applied, the page is half done.
    let batches = 0;
    const proxy = await drippingProxy({ dripExport: false, hang: (url) => url.includes('ids=') && ++batches === 2 });
    let killedAt: Journal;
    try {
      const example = spawn(process.execPath, [SYNC_SCRIPT, '--state', path], { env: { ...env(), BASE_URL: proxy.url }, stdio: 'ignore' });
      const exited = new Promise((resolve) => example.once('exit', resolve));
      await eventually(async () => proxy.held.length === 1, 30_000);
      example.kill('SIGKILL');
      await exited;
      killedAt = await readJournal(path);
    } finally {
      await proxy.close();
    }
    // Killed while applying: the stored cursor is still the one before those entries.
    expect(killedAt.cursor).toBe(before.cursor);
    const [resumed] = await sync(path);
    expect(resumed.entries).toBeGreaterThan(0);
    const copy = await readJournal(path);
    expectCompacted(copy);
    expect(copy.cursor).not.toBe(before.cursor);
    expect(differences(copy.objects, await fullRead())).toEqual([]);
  });

  it('a client that reads e-mail messages but not chat messages: the chats come in an export of their own, and the copy is all it may read', async () => {
    const scopes = ALL_SCOPES.filter((scope) => scope !== 'chat.content.read');
    const made = await runCli(
      {},
      'client:create',
      '--company',
      example.demo.company_id,
      '--name',
      'No chat content',
      '--scopes',
      scopes.join(' '),
      '--json',
    );
    expect(made.code).toBe(0);
    const client = JSON.parse(made.stdout.trim()) as { client_id: string; client_secret: string };
    const path = join(process.env.TEST_ROOT!, `sync-partial-${process.pid}.json`);
    const summary = (await syncAs(client, path)).pop()!;
    expect(summary.exported).toBeGreaterThan(50);
    expect(summary.requests).toBeLessThan(10); // two exports and the feed, not the feed from the beginning
    const copy = await readJournal(path);
    expectCompacted(copy);
    expect(Object.keys(copy.objects).some((key) => key.startsWith('email_message:'))).toBe(true);
    const readable = Object.fromEntries(Object.entries(await fullRead()).filter(([key]) => !key.startsWith('chat_message:')));
    expect(differences(copy.objects, readable)).toEqual([]);
  });
});
