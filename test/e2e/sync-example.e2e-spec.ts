import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import { runCli } from '../support/cli';
import { createTestApp, sleep } from '../support/test-app';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '../../examples/sync.mjs');

/** What the example keeps per object: the answers of its routes. */
type Copy = Record<string, { object: string; id: string; parent_id: string | null; [part: string]: unknown }>;

/**
 * The README's promise, as a test: an integrator running examples/sync.mjs keeps an exact copy.
 * The example backfills a demo company through one export, follows the feed while the activity
 * simulator writes like a capture system (long and overlapping transactions, late emails,
 * edits, revocations, deletions), catches up, and its copy is compared with a full read of the
 * API: zero differences.
 */
describe('examples/sync.mjs against seed:activity', () => {
  let app: NestExpressApplication;
  let base: string;
  let demo: { company_id: string; client_id: string; client_secret: string };
  const state = () => join(process.env.TEST_ROOT!, `sync-copy-${process.pid}.json`);
  const env = () => ({ PATH: process.env.PATH, BASE_URL: base, CLIENT_ID: demo.client_id, CLIENT_SECRET: demo.client_secret });

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const seeded = await runCli({}, 'seed:demo', '--json');
    expect(seeded.code).toBe(0);
    demo = JSON.parse(seeded.stdout.trim());
  });
  afterAll(() => app.close());

  async function token(): Promise<string> {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  /** Everything the API holds for the company now, in the example's shape, read through the list and detail routes. */
  async function fullRead(): Promise<Copy> {
    const bearer = { Authorization: `Bearer ${await token()}` };
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: bearer });
      expect([path, res.status]).toEqual([path, 200]);
      return (await res.json()) as { data: Array<Record<string, unknown>> & Record<string, unknown>; pagination?: { next_cursor: string | null } };
    };
    const all = async (path: string) => {
      const items: Array<Record<string, unknown>> = [];
      let cursor: string | null | undefined;
      do {
        const page = await get(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        items.push(...page.data);
        cursor = page.pagination?.next_cursor;
      } while (cursor);
      return items;
    };
    const copy: Copy = {};
    for (const [object, collection] of [
      ['meeting', 'meetings'],
      ['call', 'calls'],
    ]) {
      for (const item of await all(`/v1/${collection}`)) {
        const id = item.id as string;
        const at = `/v1/${collection}/${id}`;
        copy[`${object}:${id}`] = {
          object,
          id,
          parent_id: null,
          details: (await get(at)).data,
          evaluation: (await get(`${at}/evaluations/overall`)).data,
          answers: (await get(`${at}/answers`)).data,
          transcript: (await get(`${at}/transcript`)).data,
        };
      }
    }
    for (const [object, collection] of [
      ['email', 'emails'],
      ['chat', 'chat'],
    ]) {
      for (const item of await all(`/v1/${collection}`)) {
        const id = item.id as string;
        copy[`${object}:${id}`] = { object, id, parent_id: null, details: (await get(`/v1/${collection}/${id}`)).data };
        for (const message of await all(`/v1/${collection}/${id}/messages`)) {
          const key = `${object}_message:${message.id as string}`;
          copy[key] = { object: `${object}_message`, id: message.id as string, parent_id: id, details: message };
        }
      }
    }
    return copy;
  }

  /** The keys and parts where two copies differ. */
  function differences(copy: Copy, truth: Copy): string[] {
    const diffs: string[] = [];
    for (const key of new Set([...Object.keys(copy), ...Object.keys(truth)])) {
      if (!(key in copy)) diffs.push(`${key}: missing from the copy`);
      else if (!(key in truth)) diffs.push(`${key}: in the copy, gone from the API`);
      else
        for (const part of new Set([...Object.keys(copy[key]), ...Object.keys(truth[key])]))
          if (JSON.stringify(copy[key][part]) !== JSON.stringify(truth[key][part])) diffs.push(`${key}.${part} differs`);
    }
    return diffs;
  }

  const sync = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [SCRIPT, '--state', state(), ...args], { env: env() });
    return stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            entries: number;
            exported: number;
            created: number;
            updated: number;
            deleted: number;
            requests: number;
            objects: number;
          },
      );
  };

  it('backfills through one export, follows the feed with ids + include while seed:activity writes, and ends with zero differences from a full read', async () => {
    const [backfill] = await sync();
    expect(backfill.created).toBeGreaterThan(50); // 25 meetings, 25 calls, emails, chats and their messages
    expect(backfill.exported).toBeGreaterThan(50);
    // One export and the feed after it: a handful of requests, not one per record and part.
    expect(backfill.requests).toBeLessThan(10);
    const copy = JSON.parse(await readFile(state(), 'utf8')) as { cursor: string; objects: Copy };
    expect(differences(copy.objects, await fullRead())).toEqual([]);

    // Activity while the example follows the feed, then one more catch-up once the writers are done.
    const follower = spawn(process.execPath, [SCRIPT, '--state', state(), '--follow', '--interval', '0.5'], { env: env(), stdio: 'ignore' });
    const activity = await runCli({}, 'seed:activity', '--company', demo.company_id, '--minutes', '0.15', '--rate', '600', '--seed', '7', '--json');
    expect(activity.code).toBe(0);
    const report = JSON.parse(activity.stdout.trim()) as { committed: number; rolled_back: number };
    expect(report.committed).toBeGreaterThan(20);
    follower.kill('SIGTERM');
    await new Promise((resolve) => follower.once('exit', resolve));
    await sleep(200);
    const [caughtUp] = await sync();
    const after = JSON.parse(await readFile(state(), 'utf8')) as { objects: Copy };
    expect(caughtUp.objects).toBe(Object.keys(after.objects).length);
    expect(differences(after.objects, await fullRead())).toEqual([]);
  });
});
