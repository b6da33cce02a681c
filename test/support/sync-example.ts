import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import { accessToken, Demo, readEverything, servedDemo } from './full-read';
import { Journal } from './sync-journal';

const run = promisify(execFile);

/** The integrator's example the README promises: a copy of a company kept by the SDK. */
export const SYNC_SCRIPT = join(__dirname, '../../examples/sync.mjs');

/** What one run of the example printed: a line per pass. */
export interface SyncRun {
  pages: number;
  entries: number;
  exported: number;
  created: number;
  updated: number;
  deleted: number;
  requests: number;
  objects: number;
}

async function runExample(env: NodeJS.ProcessEnv, path: string, args: string[]): Promise<SyncRun[]> {
  const { stdout } = await run(process.execPath, [SYNC_SCRIPT, '--state', path, ...args], { env });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SyncRun);
}

/** A run ended with a compaction: the journal holds the live objects and one checkpoint, the feed's cursor. */
export function expectCompacted(journal: Journal): void {
  expect(journal.export).toBeNull();
  expect(journal.cursor).toMatch(/^cur_/);
  expect(journal.lines).toBe(Object.keys(journal.objects).length + 1);
}

/**
 * For the enclosing describe: a served demo company (its app listening), and the example run
 * against it as an integrator runs it. Read `base` and `demo` inside tests.
 */
export function syncExample() {
  let app: NestExpressApplication;
  let base: string;
  let demo: Demo;
  beforeAll(async () => {
    ({ app, base, demo } = await servedDemo());
  });
  afterAll(() => app.close());

  const env = () => ({ PATH: process.env.PATH, BASE_URL: base, CLIENT_ID: demo.client_id, CLIENT_SECRET: demo.client_secret });
  const state = () => join(process.env.TEST_ROOT!, `sync-copy-${process.pid}.json`);
  return {
    get base() {
      return base;
    },
    get demo() {
      return demo;
    },
    /** The example's own journal file in this file's run. */
    state,
    /** The example's environment: the served demo and its client. */
    env,
    /** Every object the demo's client may read, through the API. */
    fullRead: async () => readEverything(base, await accessToken(base, demo.client_id, demo.client_secret)),
    /** Runs the example to its end (`args` added); the lines it printed. */
    sync: (path = state(), ...args: string[]) => runExample(env(), path, args),
    /** Runs the example to its end as another client of the demo company. */
    syncAs: (client: { client_id: string; client_secret: string }, path: string) =>
      runExample({ ...env(), CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret }, path, []),
  };
}
