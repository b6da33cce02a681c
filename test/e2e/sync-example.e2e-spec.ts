import { spawn } from 'node:child_process';
import { runCli } from '../support/cli';
import { differences } from '../support/full-read';
import { readJournal } from '../support/sync-journal';
import { expectCompacted, SYNC_SCRIPT, syncExample } from '../support/sync-example';
import { sleep } from '../support/test-app';

/**
 * The README's promise, as a test: an integrator running examples/sync.mjs keeps an exact copy.
 * The example backfills a demo company through one export, follows the feed while the activity
 * simulator writes like a capture system (long and overlapping transactions, late emails,
 * edits, revocations, deletions), catches up, and its copy is compared with a full read of the
 * API: zero differences.
 */
describe('examples/sync.mjs against seed:activity [waits]', () => {
  const example = syncExample();
  const { state, env, fullRead, sync } = example;

  it('backfills through one export, follows the feed with ids + include while seed:activity writes, and ends with zero differences from a full read', async () => {
    const [backfill] = await sync();
    expect(backfill.created).toBeGreaterThan(50); // 25 meetings, 25 calls, emails, chats and their messages
    expect(backfill.exported).toBeGreaterThan(50);
    // One export and the feed after it: a handful of requests, not one per record and part.
    expect(backfill.requests).toBeLessThan(10);
    const copy = await readJournal(state());
    expectCompacted(copy);
    expect(differences(copy.objects, await fullRead())).toEqual([]);

    // Activity while the example follows the feed, then one more catch-up once the writers are done.
    const follower = spawn(process.execPath, [SYNC_SCRIPT, '--state', state(), '--follow', '--interval', '0.5'], {
      env: env(),
      stdio: 'ignore',
    });
    const activity = await runCli(
      {},
      'seed:activity',
      '--company',
      example.demo.company_id,
      '--minutes',
      '0.15',
      '--rate',
      '600',
      '--seed',
      '7',
      '--json',
    );
    expect(activity.code).toBe(0);
    const report = JSON.parse(activity.stdout.trim()) as { committed: number; rolled_back: number };
    expect(report.committed).toBeGreaterThan(20);
    follower.kill('SIGTERM');
    await new Promise((resolve) => follower.once('exit', resolve));
    await sleep(200);
    const [caughtUp] = await sync();
    const after = await readJournal(state());
    expectCompacted(after);
    expect(caughtUp.objects).toBe(Object.keys(after.objects).length);
    expect(differences(after.objects, await fullRead())).toEqual([]);

    // What a catch-up costs: its feed pages, and per thousand entries one request per collection
    // named and per hundred objects named (messages through their conversations).
    const burst = await runCli(
      {},
      'seed:activity',
      '--company',
      example.demo.company_id,
      '--minutes',
      '0.1',
      '--rate',
      '1800',
      '--seed',
      '8',
      '--json',
    );
    expect(burst.code).toBe(0);
    const [batched] = await sync();
    expect(batched.entries).toBeGreaterThan(100);
    const hundreds = Math.ceil(batched.entries / 100);
    expect(batched.requests).toBeLessThanOrEqual(batched.pages + hundreds + 4 * Math.ceil(batched.entries / 1000));
    expect(batched.pages).toBeLessThanOrEqual(hundreds + 1);
    expect(differences((await readJournal(state())).objects, await fullRead())).toEqual([]);
  });
});
