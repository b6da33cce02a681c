/**
 * The bulk lane measured (#34): what taking a copy of a company costs, against one production
 * service. `bulkPass` is the bench's bulk section (`npm run bench` runs it on its main company,
 * and the 1,000,000-record memory check on the scaling company); `npm run bench:bulk` runs it
 * alone on a company it seeds (`-- --meetings N --calls N --emails N --chats N [--rounds N] [--profile] [--keep]
 * [--memory-only]`: only the memory check, on that company).
 *
 * - one client walking `/v1/meetings?limit=100` against one export of the meetings, in
 *   alternating rounds: records per second of each (no include);
 * - exports with every part: meetings and calls with `include=evaluation,answers,transcript`,
 *   e-mails and chats with `include=messages`: MB/s of NDJSON and records/s;
 * - a page of 100 meetings with `include=evaluation,answers` against the same page without,
 *   under load, alternating: requests/s of each;
 * - service memory: its RSS at rest, and its peak during a whole export (of the biggest company
 *   at hand) and during an export read at 1 MB/s;
 * - `examples/sync.mjs` taking a complete copy (export, then the feed), then catching up after
 *   `seed:activity`: its requests and seconds, against the requests of the per-record recipe
 *   for the same data (counted from the data: list pages, three parts per meeting and call, the
 *   message pages of each conversation).
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { get as httpGet, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase, cli } from './database';
import { createTenant, refreshDocuments, seedVolume, Tenant, Volume } from './dataset';
import { alternate, LoadSettings, Measurement, round } from './load';
import { issueToken } from './scenarios';
import { PRODUCTION_ENTRY, residentMb, ServiceProcess, serviceEnv } from './service';

/** One copy read: how much came, how fast. */
export interface Throughput {
  requests: number;
  records: number;
  bytes: number;
  seconds: number;
  records_per_second: number;
  mb_per_second: number;
}

export interface BulkReport {
  volume: Volume;
  /** One client walking the list at limit=100 and one export of the meetings, alternating rounds, summed. */
  meetings: { walk: Throughput; export: Throughput; rounds: number };
  /** Exports with every part, one per round, summed. */
  with_parts: { recordings: Throughput; emails: Throughput; chats: Throughput };
  /**
   * The conversations' exports with their messages with the read model emptied (every
   * conversation rendered live) and written again (`documents:refresh`), alternating rounds:
   * what the stored documents buy. Absent from runs before it was measured.
   */
  read_model?: { emails: { live: Throughput; stored: Throughput }; chats: { live: Throughput; stored: Throughput } };
  include_page: { without: Measurement; with: Measurement };
  memory: {
    idle_mb: number;
    export: { company: string; records: number; peak_mb: number; growth_mb: number; seconds: number };
    slow_reader: { bytes_per_second: number; seconds: number; bytes: number; peak_mb: number; growth_mb: number };
  };
  sync: {
    copy: { requests: number; seconds: number; objects: number; exported: number };
    catch_up: { requests: number; seconds: number; entries: number; pages: number; activity: unknown };
    per_record_requests: number;
  };
}

export interface BulkContext {
  service: ServiceProcess;
  tenant: Tenant;
  volume: Volume;
  env: NodeJS.ProcessEnv;
  tmp: string;
  settings: LoadSettings;
  rounds: number;
  log: (line: string) => void;
  /** The company whose export is the memory check (the bench's scaling company at 1,000,000 meetings), else the main one. */
  big?: { tenant: Tenant; records: number; name: string };
  /** The catch-up's writes: `seed:activity` for this long at this rate (transactions a minute). */
  activity: { minutes: number; rate: number };
  /** How long the 1 MB/s reader reads. */
  slowSeconds: number;
}

const MB = 1024 * 1024;

/** A GET whose body is consumed as it comes (no decoding, no buffering), with the service's own headers. */
function open(baseUrl: string, path: string, token: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => reject(new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 300)}`)));
        return;
      }
      resolve(res);
    });
    req.on('error', reject);
  });
}

/** One whole export: lines and bytes counted as they arrive; fails unless it ends with its trailer. */
export async function exportOnce(
  baseUrl: string,
  token: string,
  query: string,
): Promise<Omit<Throughput, 'records_per_second' | 'mb_per_second'>> {
  const started = performance.now();
  const res = await open(baseUrl, `/v1/export?${query}`, token);
  let bytes = 0;
  let lines = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    tail = chunk.length >= 512 ? chunk.subarray(chunk.length - 512) : Buffer.concat([tail, chunk]).subarray(-512);
  }
  const last = tail.toString('utf8').trimEnd().split('\n').pop() ?? '';
  if (!last.startsWith('{"object":"export"')) throw new Error(`export ${query} ended without its trailer: ${last.slice(0, 200)}`);
  return { requests: 1, records: lines - 1, bytes, seconds: (performance.now() - started) / 1000 };
}

/** One client reading every page of a list at limit=100, one request after the other. */
export async function walkOnce(baseUrl: string, token: string, path: string): Promise<Omit<Throughput, 'records_per_second' | 'mb_per_second'>> {
  const started = performance.now();
  let requests = 0;
  let records = 0;
  let bytes = 0;
  let cursor: string | null = null;
  do {
    const res = await open(baseUrl, `${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, token);
    const chunks: Buffer[] = [];
    for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    requests++;
    bytes += body.length;
    const page = JSON.parse(body.toString('utf8')) as { data: unknown[]; pagination: { has_more: boolean; next_cursor: string | null } };
    records += page.data.length;
    cursor = page.pagination.has_more ? page.pagination.next_cursor : null;
  } while (cursor);
  return { requests, records, bytes, seconds: (performance.now() - started) / 1000 };
}

function summed(runs: Array<Omit<Throughput, 'records_per_second' | 'mb_per_second'>>): Throughput {
  const total = (f: (r: (typeof runs)[number]) => number) => runs.reduce((n, r) => n + f(r), 0);
  const seconds = total((r) => r.seconds);
  return {
    requests: total((r) => r.requests),
    records: total((r) => r.records),
    bytes: total((r) => r.bytes),
    seconds: round(seconds, 2),
    records_per_second: round(total((r) => r.records) / seconds, 0),
    mb_per_second: round(total((r) => r.bytes) / MB / seconds, 1),
  };
}

/** The service's resident memory at rest: the lowest of a few readings a moment apart. */
async function idleMb(pid: number): Promise<number> {
  let low = Infinity;
  for (let i = 0; i < 10; i++) {
    low = Math.min(low, residentMb(pid).rss);
    await new Promise((r) => setTimeout(r, 200));
  }
  return low;
}

/** An export read at `rate` bytes a second for `seconds`, then let go. */
async function slowRead(baseUrl: string, token: string, rate: number, seconds: number): Promise<number> {
  const res = await open(baseUrl, '/v1/export?include=evaluation,answers,transcript,messages', token);
  const started = performance.now();
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    const stop = setTimeout(() => {
      res.destroy();
      resolve();
    }, seconds * 1000);
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      const ahead = bytes / rate - (performance.now() - started) / 1000;
      if (ahead > 0) {
        res.pause();
        setTimeout(() => res.resume(), ahead * 1000);
      }
    });
    res.on('end', () => {
      clearTimeout(stop);
      resolve();
    });
    res.on('error', (error) => {
      clearTimeout(stop);
      if (res.destroyed) resolve();
      else reject(error);
    });
  });
  return bytes;
}

/** `node examples/sync.mjs --state <file>` once: its summary line and its wall-clock seconds. */
async function syncRun(ctx: BulkContext, state: string): Promise<{ summary: Record<string, number>; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join('examples', 'sync.mjs'), '--state', state], {
    env: { ...process.env, BASE_URL: ctx.service.baseUrl, CLIENT_ID: ctx.tenant.clientId, CLIENT_SECRET: ctx.tenant.clientSecret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`examples/sync.mjs exited with ${code}: ${stderr}`);
  const last = stdout.trim().split('\n').pop() ?? '{}';
  return { summary: JSON.parse(last) as Record<string, number>, seconds: round((performance.now() - started) / 1000, 1) };
}

/** The per-record recipe's requests for `volume`: every list page, three parts per meeting and call, each conversation's message pages. */
export function perRecordRequests(v: Volume): number {
  const pages = (n: number) => Math.max(1, Math.ceil(n / 100));
  return (
    pages(v.meetings) +
    pages(v.calls) +
    3 * (v.meetings + v.calls) +
    pages(v.emails) +
    v.emails * pages(v.emailMessages) +
    pages(v.chats) +
    v.chats * pages(v.chatMessages)
  );
}

/** The service's memory at rest, during a whole export of the biggest company at hand, and under a reader taking 1 MB/s. */
export async function memoryPass(ctx: BulkContext, token: string): Promise<BulkReport['memory']> {
  const { service, log } = ctx;
  const base = service.baseUrl;
  const big = ctx.big ?? { tenant: ctx.tenant, records: 0, name: 'main' };
  const bigToken = big.tenant === ctx.tenant ? token : await issueToken(base, big.tenant);
  const idle = await idleMb(service.pid);
  log(`bulk: memory at rest ${idle} MB; the ${big.name} company's whole export with every part`);
  service.rss.reset();
  const whole = await exportOnce(base, bigToken, 'include=evaluation,answers,transcript,messages');
  const peak = service.rss.peakMb();
  const idleBeforeSlow = await idleMb(service.pid);
  service.rss.reset();
  const rate = MB;
  const slowBytes = await slowRead(base, bigToken, rate, ctx.slowSeconds);
  const slowPeak = service.rss.peakMb();
  const memory: BulkReport['memory'] = {
    idle_mb: idle,
    export: { company: big.name, records: whole.records, peak_mb: peak, growth_mb: peak - idle, seconds: round(whole.seconds, 1) },
    slow_reader: {
      bytes_per_second: rate,
      seconds: ctx.slowSeconds,
      bytes: slowBytes,
      peak_mb: slowPeak,
      growth_mb: slowPeak - idleBeforeSlow,
    },
  };
  log(`  ${whole.records} records: peak ${peak} MB (+${peak - idle}); 1 MB/s reader: peak ${slowPeak} MB (+${slowPeak - idleBeforeSlow})`);

  return memory;
}

/**
 * The e-mail and chat exports with `include=messages`, alternating: the company's conversation
 * documents emptied (the service renders every conversation live, as before the read model),
 * then written again by `documents:refresh` (it serves them stored).
 */
async function readModelSideBySide(ctx: BulkContext, token: string): Promise<NonNullable<BulkReport['read_model']>> {
  const owner = new Client({ connectionString: ctx.env.MIGRATION_DATABASE_URL });
  await owner.connect();
  const runs = { emails: { live: [] as Measured[], stored: [] as Measured[] }, chats: { live: [] as Measured[], stored: [] as Measured[] } };
  try {
    for (let r = 0; r < ctx.rounds; r++) {
      await owner.query('UPDATE conversation_documents SET document = NULL, messages = NULL, format = NULL WHERE company_id = $1', [
        ctx.tenant.internalId,
      ]);
      runs.emails.live.push(await exportOnce(ctx.service.baseUrl, token, 'types=email&include=messages'));
      runs.chats.live.push(await exportOnce(ctx.service.baseUrl, token, 'types=chat&include=messages'));
      await refreshDocuments(ctx.env);
      runs.emails.stored.push(await exportOnce(ctx.service.baseUrl, token, 'types=email&include=messages'));
      runs.chats.stored.push(await exportOnce(ctx.service.baseUrl, token, 'types=chat&include=messages'));
    }
  } finally {
    await owner.end();
  }
  return {
    emails: { live: summed(runs.emails.live), stored: summed(runs.emails.stored) },
    chats: { live: summed(runs.chats.live), stored: summed(runs.chats.stored) },
  };
}

type Measured = Awaited<ReturnType<typeof exportOnce>>;

export async function bulkPass(ctx: BulkContext): Promise<BulkReport> {
  const { service, log } = ctx;
  const base = service.baseUrl;
  const token = await issueToken(base, ctx.tenant);

  log(`bulk: one client walking /v1/meetings?limit=100 against one export of the meetings, ${ctx.rounds} alternating rounds`);
  const walks: Array<Awaited<ReturnType<typeof walkOnce>>> = [];
  const exports: Array<Awaited<ReturnType<typeof exportOnce>>> = [];
  for (let r = 0; r < ctx.rounds; r++) {
    walks.push(await walkOnce(base, token, '/v1/meetings'));
    exports.push(await exportOnce(base, token, 'types=meeting'));
  }
  const meetings = { walk: summed(walks), export: summed(exports), rounds: ctx.rounds };
  log(`  walk ${meetings.walk.records_per_second} records/s, export ${meetings.export.records_per_second} records/s`);

  log('bulk: exports with every part');
  const parts = { recordings: [] as typeof exports, emails: [] as typeof exports, chats: [] as typeof exports };
  for (let r = 0; r < ctx.rounds; r++) {
    parts.recordings.push(await exportOnce(base, token, 'types=meeting,call&include=evaluation,answers,transcript'));
    parts.emails.push(await exportOnce(base, token, 'types=email&include=messages'));
    parts.chats.push(await exportOnce(base, token, 'types=chat&include=messages'));
  }
  const with_parts = { recordings: summed(parts.recordings), emails: summed(parts.emails), chats: summed(parts.chats) };
  for (const [name, t] of Object.entries(with_parts)) log(`  ${name}: ${t.mb_per_second} MB/s, ${t.records_per_second} records/s`);

  log(`bulk: the conversations' exports with their messages, read model emptied and written again, ${ctx.rounds} alternating rounds`);
  const read_model = await readModelSideBySide(ctx, token);
  for (const [name, t] of Object.entries(read_model)) {
    log(`  ${name}: live ${t.live.mb_per_second} MB/s, stored ${t.stored.mb_per_second} MB/s (${round(t.stored.mb_per_second / t.live.mb_per_second, 2)}×)`);
  }

  log(`bulk: a page of 100 meetings with include=evaluation,answers against the same without, ${ctx.rounds} alternating rounds`);
  const bearer = { authorization: `Bearer ${token}` };
  const [without, withParts] = await alternate(
    [
      { name: 'meetings_page', title: 'GET /v1/meetings?limit=100', path: '/v1/meetings?limit=100', headers: bearer },
      {
        name: 'meetings_page_include',
        title: 'GET /v1/meetings?limit=100&include=evaluation,answers',
        path: '/v1/meetings?limit=100&include=evaluation,answers',
        headers: bearer,
      },
    ].map((scenario) => ({ scenario, settings: ctx.settings })),
    ctx.rounds,
  );
  log(`  without ${without.requests_per_second} req/s, with ${withParts.requests_per_second} req/s`);

  const memory = await memoryPass(ctx, token);

  log('bulk: examples/sync.mjs takes a complete copy, then catches up after seed:activity');
  const state = join(ctx.tmp, 'sync-copy.ndjson');
  await rm(state, { force: true });
  const copy = await syncRun(ctx, state);
  log(`  copy: ${JSON.stringify(copy)}`);
  const activity = await cli<unknown>(ctx.env, [
    'seed:activity',
    '--company',
    ctx.tenant.companyId,
    '--minutes',
    String(ctx.activity.minutes),
    '--rate',
    String(ctx.activity.rate),
    '--seed',
    '34',
  ]);
  const catchUp = await syncRun(ctx, state);
  log(`  catch-up: ${JSON.stringify(catchUp)}`);
  await rm(state, { force: true });
  return {
    volume: ctx.volume,
    meetings,
    with_parts,
    read_model,
    include_page: { without, with: withParts },
    memory,
    sync: {
      copy: { requests: copy.summary.requests, seconds: copy.seconds, objects: copy.summary.objects, exported: copy.summary.exported },
      catch_up: {
        requests: catchUp.summary.requests,
        seconds: catchUp.seconds,
        entries: catchUp.summary.entries,
        pages: catchUp.summary.pages,
        activity,
      },
      per_record_requests: perRecordRequests(ctx.volume),
    },
  };
}

function options(argv: string[]) {
  const get = (flag: string, fallback: number) => {
    const at = argv.indexOf(flag);
    const value = at >= 0 ? Number(argv[at + 1]) : fallback;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} must be a whole number`);
    return value;
  };
  return {
    volume: {
      meetings: get('--meetings', 4000),
      calls: get('--calls', 2000),
      emails: get('--emails', 500),
      chats: get('--chats', 500),
      emailMessages: 10,
      chatMessages: 20,
    },
    rounds: get('--rounds', 2),
    profile: argv.includes('--profile'),
    keep: argv.includes('--keep'),
    memoryOnly: argv.includes('--memory-only'),
  };
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const o = options(process.argv.slice(2));
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-bulk');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const tenant = await createTenant(db, env, 'Bulk');
  log(`seeding ${JSON.stringify(o.volume)}`);
  await seedVolume(env, tenant, o.volume);
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const profiles = join(tmpdir(), 'conversation-read-api-bench-bulk-profiles');
  const flags = o.profile ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [];
  const service = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'bulk.log'), flags);
  try {
    const ctx: BulkContext = {
      service,
      tenant,
      volume: o.volume,
      env,
      tmp,
      settings: { baseUrl: service.baseUrl, connections: 20, duration: 5, warmup: 1, rss: service.rss },
      rounds: o.rounds,
      log,
      activity: { minutes: 0.25, rate: 600 },
      slowSeconds: o.memoryOnly ? 30 : 10,
    };
    const report = o.memoryOnly
      ? { volume: o.volume, memory: await memoryPass(ctx, await issueToken(service.baseUrl, tenant)) }
      : await bulkPass(ctx);
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/bulk${o.memoryOnly ? '-memory' : ''}-${new Date().toISOString().slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify({ date: new Date().toISOString(), ...report }, null, 2)}\n`);
    log(`wrote ${file}${o.profile ? `; profiles in ${profiles}` : ''}`);
  } finally {
    await service.stop();
    await db.close(o.keep, dataDir);
    if (o.keep) log(`kept the database in ${dataDir}`);
  }
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
