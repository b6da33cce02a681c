/**
 * `npm run bench:versions -- --baseline DIR [--meetings N] [--rounds N]`: this tree's code against
 * another checkout's, side by side in one run, for a change that must not move speed (a
 * restructuring). DIR is a built checkout (`npx nest build && npm run sdk:build` there), usually a
 * `git worktree` of the commit before the change.
 *
 * One database and one company (meetings, a quarter as many calls, e-mail and chat conversations,
 * the read model written) serve both. Two services run on it, the baseline's and this tree's, and
 * in alternating rounds (the order flips each round) the same work is done on each:
 * - the export with every part, and the export of records alone (bytes counted on the wire);
 * - the meetings list walked at 100 a page.
 * Then the SDKs, each against this tree's service: the meetings walked and the export with every
 * part through `api.meetings.list` and `api.export`, and `api.sync` into a MemoryStore.
 * Results in bench/results/versions-<date>.json; a ratio above 1 means this tree is slower.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as thisSdk from '@conversation-read-api/sdk';
import { freePort } from '../src/database/embedded-postgres';
import { exportOnce, walkOnce } from './bulk';
import { BenchDatabase } from './database';
import { createTenant, refreshDocuments, seedVolume } from './dataset';
import { issueToken } from './scenarios';
import { PRODUCTION_ENTRY, ServiceProcess, serviceEnv } from './service';

type Sdk = typeof thisSdk;
type Side = 'baseline' | 'current';

const EVERY_PART = 'include=evaluation,answers,transcript,messages';

interface Run {
  seconds: number;
  records: number;
  bytes?: number;
  peak_rss_mb?: number;
}

interface Pair {
  name: string;
  run: Record<Side, () => Promise<Run>>;
}

function options(argv: string[]) {
  const at = argv.indexOf('--baseline');
  const baseline = at >= 0 ? argv[at + 1] : undefined;
  if (!baseline) throw new Error('--baseline DIR is required: a built checkout of the code to compare with');
  const number = (flag: string, fallback: number) => {
    const i = argv.indexOf(flag);
    const value = i >= 0 ? Number(argv[i + 1]) : fallback;
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} must be a positive whole number`);
    return value;
  };
  return { baseline: isAbsolute(baseline) ? baseline : resolve(baseline), meetings: number('--meetings', 4000), rounds: number('--rounds', 4) };
}

async function timed(work: () => Promise<{ records: number; bytes?: number }>): Promise<Run> {
  const started = performance.now();
  const { records, bytes } = await work();
  return { seconds: Math.round(performance.now() - started) / 1000, records, ...(bytes === undefined ? {} : { bytes }) };
}

/** A run on a service, with the service's peak resident memory during it. */
async function onService(service: ServiceProcess, work: () => Promise<{ records: number; bytes: number }>): Promise<Run> {
  service.rss.reset();
  const run = await timed(work);
  return { ...run, peak_rss_mb: service.rss.peakMb() };
}

function sdkPairs(sdks: Record<Side, Sdk>, api: (sdk: Sdk) => InstanceType<Sdk['ConversationApi']>): Pair[] {
  const clients = { baseline: api(sdks.baseline), current: api(sdks.current) };
  const each = (work: (client: InstanceType<Sdk['ConversationApi']>, sdk: Sdk) => Promise<{ records: number }>) => ({
    baseline: () => timed(() => work(clients.baseline, sdks.baseline)),
    current: () => timed(() => work(clients.current, sdks.current)),
  });
  return [
    {
      name: 'SDK: meetings walked at 100 a page',
      run: each(async (client) => {
        let records = 0;
        for await (const _ of client.meetings.list({ limit: 100 })) records++;
        return { records };
      }),
    },
    {
      name: 'SDK: the export with every part',
      run: each(async (client) => {
        let records = 0;
        for await (const _ of client.export({ include: ['evaluation', 'answers', 'transcript', 'messages'] })) records++;
        return { records };
      }),
    },
    {
      name: 'SDK: sync into a MemoryStore from nothing',
      run: each(async (client, sdk) => {
        const store = new sdk.MemoryStore();
        await client.sync(store);
        return { records: store.objects.size };
      }),
    },
  ];
}

async function alternate(pair: Pair, rounds: number, log: (line: string) => void) {
  const runs: Record<Side, Run[]> = { baseline: [], current: [] };
  await pair.run.baseline(); // warm both once
  await pair.run.current();
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 ? ['current', 'baseline'] : ['baseline', 'current'];
    for (const side of order) runs[side].push(await pair.run[side]());
  }
  const best = (side: Side) => Math.min(...runs[side].map((r) => r.seconds));
  const counts = new Set([...runs.baseline, ...runs.current].map((r) => r.records));
  if (counts.size !== 1) throw new Error(`${pair.name}: the two sides read different numbers of records: ${[...counts].join(', ')}`);
  const ratio = Math.round((best('current') / best('baseline')) * 1000) / 1000;
  log(`${pair.name}: baseline ${best('baseline')} s, current ${best('current')} s (${[...counts][0]} records, current/baseline ${ratio})`);
  return { name: pair.name, best_seconds: { baseline: best('baseline'), current: best('current') }, ratio, runs };
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const o = options(process.argv.slice(2));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const baselineSdk = require(join(o.baseline, 'sdk', 'dist', 'cjs', 'index.js')) as Sdk;
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-versions');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const tenant = await createTenant(db, env, 'Versions');
  const quarter = Math.max(1, Math.round(o.meetings / 4));
  log(`seeding ${o.meetings} meetings, ${quarter} calls, ${quarter} e-mail and ${quarter} chat conversations`);
  await seedVolume(env, tenant, { meetings: o.meetings, calls: quarter, emails: quarter, chats: quarter, emailMessages: 6, chatMessages: 12 });
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const services: Partial<Record<Side, ServiceProcess>> = {};
  try {
    services.baseline = await ServiceProcess.start(join(o.baseline, PRODUCTION_ENTRY), await freePort(), env, join(tmp, 'baseline.log'));
    services.current = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'current.log'));
    const on = { baseline: services.baseline, current: services.current };
    const tokens = { baseline: await issueToken(on.baseline.baseUrl, tenant), current: await issueToken(on.current.baseUrl, tenant) };
    const served = (work: (baseUrl: string, token: string) => Promise<{ records: number; bytes: number }>) => ({
      baseline: () => onService(on.baseline, () => work(on.baseline.baseUrl, tokens.baseline)),
      current: () => onService(on.current, () => work(on.current.baseUrl, tokens.current)),
    });
    const pairs: Pair[] = [
      { name: 'export with every part', run: served((url, token) => exportOnce(url, token, EVERY_PART)) },
      { name: 'export of records alone', run: served((url, token) => exportOnce(url, token, '')) },
      { name: 'meetings walked at 100 a page', run: served((url, token) => walkOnce(url, token, '/v1/meetings')) },
      ...sdkPairs(
        { baseline: baselineSdk, current: thisSdk },
        (sdk) => new sdk.ConversationApi({ baseUrl: on.current.baseUrl, clientId: tenant.clientId, clientSecret: tenant.clientSecret }),
      ),
    ];
    const measured = [];
    for (const pair of pairs) measured.push(await alternate(pair, o.rounds, log));
    await mkdir('bench/results', { recursive: true });
    const date = new Date().toISOString();
    const file = `bench/results/versions-${date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify({ date, baseline: o.baseline, meetings: o.meetings, rounds: o.rounds, pairs: measured }, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    await services.baseline?.stop();
    await services.current?.stop();
    await db.close(false, dataDir);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
