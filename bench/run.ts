import 'reflect-metadata';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { VolumeResult } from '../src/seeding/volume-seeder';
import { RedisRateLimitStore } from '../src/rate-limit/redis-rate-limit-store';
import { freePort } from '../src/database/embedded-postgres';
import { scrapeMetrics } from './metrics';
import { hasRedisServer, RedisServer, startRedisServer } from '../test/support/redis';
import { BenchDatabase } from './database';
import { createTenant, feedCursorAt, prepareFixtures, refreshDocuments, sampleMeetingIds, seedVolume, Tenant, Volume } from './dataset';
import { get as httpGet } from 'node:http';
import { alternate, LoadSettings, measure, Measurement, percentiles, round, Scenario } from './load';
import { BenchOptions, parseBenchOptions, shareOf } from './options';
import { allMeasurements, BenchReport, describeMachine, Encoding, ENCODINGS, evaluateTargets, gitCommit, writeReport } from './report';
import { FeedReport, feedLatency, storageAfterCompaction, triggerOverhead } from './feed';
import { changesPages, filteredPage, firstPage, FLOOR, issueToken, mainScenarios, preflight, singleRead } from './scenarios';
import { PRODUCTION_ENTRY, ServiceProcess, serviceEnv } from './service';
import { webhookBench } from './webhooks';
import { bulkPass } from './bulk';
import { FULL as NEIGHBOURS_SIZE, neighboursPass } from './neighbours';

const UNAUDITED_ENTRY = join('dist', 'bench', 'unaudited-server.js');
const ANCHOR_ENTRY = join('dist', 'bench', 'raw-anchor.js');
/** The statement bounds of #19 lifted, for the side-by-side pass: what the service did before them. */
const UNBOUNDED_STATEMENTS = {
  DB_MAX_PREPARED_STATEMENTS: '1000',
  DB_CONNECTION_LIFETIME_SECONDS: '86400',
  DB_CONNECTION_MAX_USES: '1000000000',
};

const began = Date.now();
const log = (line: string) => process.stdout.write(`[bench ${String(Math.round((Date.now() - began) / 1000)).padStart(4)} s] ${line}\n`);
const seconds = (since: number) => round((Date.now() - since) / 1000, 1);

let profileDir: string | undefined;

async function startService(entry: string, env: NodeJS.ProcessEnv, tmp: string, name: string): Promise<ServiceProcess> {
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const service = await ServiceProcess.start(entry, await freePort(), env, join(tmp, `${name}.log`), flags);
  log(`${name} service ready at ${service.baseUrl} (pid ${service.pid}, log ${join(tmp, `${name}.log`)})`);
  return service;
}

async function run(settings: LoadSettings, scenario: Scenario): Promise<Measurement> {
  return logMeasurement(await measure(scenario, settings));
}

function logMeasurement(m: Measurement, label = m.name): Measurement {
  log(
    `${label.padEnd(22)} ${String(m.requests_per_second).padStart(8)} req/s  p50 ${m.latency_ms.p50} ms  p99 ${m.latency_ms.p99} ms  ` +
      `errors ${m.errors}  non-2xx ${m.non_2xx}  RSS ${m.peak_rss_mb} MB`,
  );
  return m;
}

async function seedMain(
  db: BenchDatabase,
  env: NodeJS.ProcessEnv,
  o: BenchOptions,
): Promise<{ tenants: Tenant[]; results: VolumeResult[][] }> {
  const tenants: Tenant[] = [];
  const results: VolumeResult[][] = [];
  for (let i = 0; i < o.companies; i++) {
    const tenant = await createTenant(db, env, `Bench company ${i + 1}`);
    const volume = volumeOf(o, i);
    log(`seeding ${tenant.companyId}: ${JSON.stringify(volume)}`);
    results.push(await seedVolume(env, tenant, volume));
    tenants.push(tenant);
  }
  return { tenants, results };
}

/** Company `i`'s share of the totals (the first, measured one, holds half). */
function volumeOf(o: BenchOptions, i: number): Volume {
  return {
    meetings: shareOf(o.meetings, i, o.companies),
    calls: shareOf(o.calls, i, o.companies),
    emails: shareOf(o.emails, i, o.companies),
    chats: shareOf(o.chats, i, o.companies),
    emailMessages: o.emailMessages,
    chatMessages: o.chatMessages,
  };
}

/** One company measured small, grown, and measured again (list first page and single reads). */
/**
 * Two services side by side (A, then B differing by entry or environment), each scenario measured
 * on both in alternating rounds; B's lines carry `title` after their own.
 */
async function alternatingPass(
  run: { env: NodeJS.ProcessEnv; tmp: string; tenant: Tenant; settings: LoadSettings; rounds: number },
  makers: Array<(token: string) => Scenario>,
  sides: { a: { entry: string; name: string }; b: { entry: string; name: string; title: string; env?: NodeJS.ProcessEnv } },
): Promise<[Measurement[], Measurement[]]> {
  const a = await startService(sides.a.entry, run.env, run.tmp, sides.a.name);
  const b = await startService(sides.b.entry, { ...run.env, ...sides.b.env }, run.tmp, sides.b.name);
  const measured: [Measurement[], Measurement[]] = [[], []];
  try {
    const tokens = await Promise.all([a, b].map((s) => issueToken(s.baseUrl, run.tenant)));
    for (const make of makers) {
      const [onA, onB] = await alternate(
        [a, b].map((s, i) => ({ scenario: make(tokens[i]), settings: { ...run.settings, baseUrl: s.baseUrl, rss: s.rss } })),
        run.rounds,
      );
      measured[0].push(logMeasurement(onA, `${onA.name} ${sides.a.name}`));
      measured[1].push(logMeasurement({ ...onB, title: `${onB.title}, ${sides.b.title}` }, `${onB.name} ${sides.b.name}`));
    }
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  return measured;
}

async function scalingPass(
  db: BenchDatabase,
  env: NodeJS.ProcessEnv,
  o: BenchOptions,
  settings: LoadSettings,
  baseUrl: string,
): Promise<{ report: BenchReport['scaling']; tenant?: Tenant }> {
  if (!o.scaleTo) return { report: { skipped: '--scale-to 0' } };
  const tenant = await createTenant(db, env, 'Bench scaling company');
  const none = { calls: 0, emails: 0, chats: 0, emailMessages: 1, chatMessages: 1 };
  await seedVolume(env, tenant, { meetings: o.scaleFrom, ...none });
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const token = await issueToken(baseUrl, tenant);
  const pass = async () => {
    const ids = await sampleMeetingIds(db, tenant);
    // The feed read as deep as this company's goes: about a million entries in at `scaleTo`.
    const feed = await feedCursorAt(db, tenant, env.CURSOR_SECRET!, o.scaleTo);
    const deep = { changesDeepOffset: feed.offset, changesDeepCursor: feed.cursor, changesDeepFirstId: feed.firstId };
    const scenarios = [firstPage(token), singleRead(token, ids), ...changesPages(token, deep)];
    await preflight(baseUrl, scenarios, deep, 0);
    const measured: Measurement[] = [];
    for (const scenario of scenarios) measured.push(await run(settings, scenario));
    return measured;
  };
  log(`scaling pass at ${o.scaleFrom} meetings`);
  const small = await pass();
  const seedStart = Date.now();
  log(`growing the scaling company to ${o.scaleTo} meetings`);
  await seedVolume(env, tenant, { meetings: o.scaleTo - o.scaleFrom, ...none });
  const seedSeconds = seconds(seedStart);
  const vacuumStart = Date.now();
  await db.vacuumAnalyze();
  const vacuumSeconds = seconds(vacuumStart);
  const documents = await refreshDocuments(env);
  log(
    `scaling pass at ${o.scaleTo} meetings (seeded in ${seedSeconds} s, vacuumed in ${vacuumSeconds} s, read model written in ${documents.seconds} s)`,
  );
  const large = await pass();
  return { report: { from: o.scaleFrom, to: o.scaleTo, seed_seconds: seedSeconds, vacuum_seconds: vacuumSeconds, small, large }, tenant };
}

/** The production build and the raw anchor side by side: the single read and the page of 100, alternating. */
async function anchorPass(
  run: { env: NodeJS.ProcessEnv; tmp: string; tenant: Tenant; settings: LoadSettings; rounds: number },
  meetingIds: string[],
): Promise<BenchReport['anchor']> {
  const service = await startService(PRODUCTION_ENTRY, run.env, run.tmp, 'beside-anchor');
  const anchor = await startService(ANCHOR_ENTRY, run.env, run.tmp, 'raw-anchor');
  try {
    // The anchor has no token endpoint: it verifies the service's tokens with the same key.
    const token = await issueToken(service.baseUrl, run.tenant);
    const report: NonNullable<BenchReport['anchor']> = { service: [], anchor: [] };
    for (const make of [(t: string) => singleRead(t, meetingIds), firstPage]) {
      const sides = [service, anchor].map((s) => ({
        scenario: make(token),
        settings: { ...run.settings, baseUrl: s.baseUrl, rss: s.rss },
      }));
      await preflight(anchor.baseUrl, [sides[1].scenario], {}, 0);
      const [ours, raw] = await alternate(sides, run.rounds);
      report.service.push(logMeasurement(ours, `${ours.name} service`));
      report.anchor.push(logMeasurement({ ...raw, title: `${raw.title}, raw anchor` }, `${raw.name} anchor`));
    }
    return report;
  } finally {
    await Promise.all([service.stop(), anchor.stop()]);
  }
}

/** The bytes of a page of 100 in each encoding, then the page asked for in each, alternating. */
async function compressionPass(settings: LoadSettings, token: string, rounds: number): Promise<BenchReport['compression']> {
  const page = firstPage(token);
  const bytes = {} as Record<Encoding, number>;
  for (const encoding of ENCODINGS) bytes[encoding] = await bodyBytes(settings.baseUrl, page, encoding);
  const measured = await alternate(
    ENCODINGS.map((encoding) => ({
      scenario: {
        ...page,
        name: `meetings_first_page_${encoding}`,
        title: `${page.title}, Accept-Encoding: ${encoding}`,
        headers: { ...page.headers, 'accept-encoding': encoding },
      },
      settings,
    })),
    rounds,
  );
  for (const m of measured) logMeasurement(m);
  return { bytes, measured };
}

/** The body of one answer as it crossed the wire (not decoded), in bytes. */
function bodyBytes(baseUrl: string, scenario: Scenario, encoding: Encoding): Promise<number> {
  return new Promise((resolve, reject) => {
    const path = typeof scenario.path === 'string' ? scenario.path : scenario.path();
    const req = httpGet(`${baseUrl}${path}`, { headers: { ...scenario.headers, 'accept-encoding': encoding } }, (res) => {
      let n = 0;
      res.on('data', (chunk: Buffer) => (n += chunk.length));
      res.on('end', () => {
        const served = res.headers['content-encoding'] ?? 'identity';
        if (res.statusCode !== 200 || served !== encoding) reject(new Error(`${encoding} asked, ${res.statusCode} ${served} answered`));
        else resolve(n);
      });
    });
    req.on('error', reject);
  });
}

/** The rate-limit store's round trip alone, then the single read with the counters in Redis. */
async function redisPass(
  env: NodeJS.ProcessEnv,
  tmp: string,
  settings: Omit<LoadSettings, 'baseUrl' | 'rss'> & { rounds: number },
  tenant: Tenant,
  meetingIds: string[],
): Promise<BenchReport['redis']> {
  let server: RedisServer | undefined;
  let url = process.env.REDIS_URL;
  if (hasRedisServer()) {
    server = await startRedisServer();
    url = server.url;
  }
  if (!url) return { skipped: 'no redis-server on the PATH and no REDIS_URL' };
  let service: ServiceProcess | undefined;
  let inProcess: ServiceProcess | undefined;
  try {
    const store = new RedisRateLimitStore(url, 500);
    await store.onModuleInit();
    const trips: number[] = [];
    const demands = [
      { key: 'bench:client', limit: 1e9, windowMs: 60_000 },
      { key: 'bench:company', limit: 1e9, windowMs: 60_000 },
    ];
    for (let i = 0; i < 2_000; i++) {
      const t = process.hrtime.bigint();
      await store.consume(demands);
      trips.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    store.onModuleDestroy();
    const roundTrip = percentiles(trips.slice(200)); // the first ones warm the connection and the script cache
    inProcess = await startService(PRODUCTION_ENTRY, env, tmp, 'in-process-counters');
    service = await startService(PRODUCTION_ENTRY, { ...env, REDIS_URL: url }, tmp, 'redis-counters');
    const contenders = await Promise.all(
      [inProcess, service].map(async (s) => ({
        scenario: singleRead(await issueToken(s.baseUrl, tenant), meetingIds),
        settings: { ...settings, baseUrl: s.baseUrl, rss: s.rss },
      })),
    );
    const [inProcessRead, redisRead] = await alternate(contenders, settings.rounds);
    logMeasurement(inProcessRead, 'meeting in-process');
    logMeasurement(redisRead, 'meeting redis');
    return {
      round_trip_p50_ms: roundTrip.p50,
      round_trip_p99_ms: roundTrip.p99,
      in_process: { ...inProcessRead, title: `${inProcessRead.title}, counters in process` },
      redis: { ...redisRead, name: 'meeting_redis', title: `${redisRead.title}, counters in Redis` },
    };
  } finally {
    await inProcess?.stop();
    await service?.stop();
    await server?.stop();
  }
}

async function main(): Promise<void> {
  const o = parseBenchOptions(process.argv.slice(2));
  const tmp = join(o.out, 'tmp');
  await mkdir(tmp, { recursive: true });
  const dataDir = join(tmp, 'postgres-data');
  if (o.profile) profileDir = join(tmp, 'profiles');
  const date = new Date().toISOString();
  log(`options ${JSON.stringify(o)}`);
  const db = await BenchDatabase.open(dataDir, log);
  let service: ServiceProcess | undefined;
  try {
    const env = serviceEnv(db, tmp);
    const seedStart = Date.now();
    const { tenants, results } = await seedMain(db, env, o);
    const seedSeconds = seconds(seedStart);
    const vacuumStart = Date.now();
    await db.vacuumAnalyze();
    const vacuumSeconds = seconds(vacuumStart);
    const documents = await refreshDocuments(env);
    log(
      `seeded in ${seedSeconds} s, vacuumed in ${vacuumSeconds} s, read model written in ${documents.seconds} s (${documents.rendered} documents)`,
    );
    const [tenant] = tenants;
    const fixtures = await prepareFixtures(db, tenant, env.CURSOR_SECRET!, o.deepOffset);

    service = await startService(PRODUCTION_ENTRY, env, tmp, 'production');
    const settings: LoadSettings = {
      baseUrl: service.baseUrl,
      connections: o.connections,
      duration: o.duration,
      warmup: o.warmup,
      rss: service.rss,
    };
    const token = await issueToken(service.baseUrl, tenant);
    const scenarios = mainScenarios(tenant, token, fixtures);
    await preflight(service.baseUrl, scenarios, fixtures, o.chatMessages);
    const main: Measurement[] = [];
    for (const scenario of scenarios) main.push(await run(settings, scenario));
    const metricsScrape = await scrapeMetrics(service.metricsUrl!, 'api');
    log(
      `metrics: ${metricsScrape.required.filter((r) => r.live).length} of ${metricsScrape.required.length} required metrics live at ${metricsScrape.url}`,
    );
    log(`compression: a page of 100 in each encoding, ${o.rounds} alternating rounds`);
    const compression = await compressionPass(settings, token, o.rounds);
    log('change feed latency: one commit every 10 ms, a reader polling every 50 ms');
    const feed: FeedReport = { latency: await feedLatency(db, service.baseUrl, tenant, token, 100, 10) };
    const { report: scaling, tenant: scalingTenant } = await scalingPass(db, env, o, settings, service.baseUrl);
    const bulk: BenchReport['bulk'] = o.skipBulk
      ? { skipped: '--skip-bulk' }
      : await bulkPass({
          service,
          tenant,
          volume: volumeOf(o, 0),
          env,
          tmp,
          settings,
          rounds: o.rounds,
          log,
          big: scalingTenant && { tenant: scalingTenant, records: o.scaleTo, name: `scaling (${o.scaleTo.toLocaleString('en')} meetings)` },
          activity: { minutes: 0.5, rate: 1200 },
          slowSeconds: 30,
        });
    await service.stop();
    service = undefined;
    const webhooks: BenchReport['webhooks'] = o.webhookSeconds
      ? await webhookBench(db, env, tmp, { rate: 100, seconds: o.webhookSeconds, backlog: o.webhookBacklog }, log)
      : { skipped: '--webhook-seconds 0' };
    // Storage first: the overhead pass seeds a company with the triggers off, whose records have no entries.
    log('change-log storage: everything compacted as if older than CHANGES_COMPACT_AFTER');
    feed.storage = await storageAfterCompaction(db, env);
    if (o.triggerMeetings > 0) {
      log(
        `change triggers' write overhead: seed:volume of ${o.triggerMeetings} meetings with and without them, ${o.triggerRounds} alternating rounds`,
      );
      feed.trigger_overhead = await triggerOverhead(db, env, o.triggerMeetings, o.triggerRounds, log);
    }

    const sideBySide = { env, tmp, tenant, settings, rounds: o.rounds };
    const single = (t: string) => singleRead(t, fixtures.meetingIds);
    log(
      `audit write measured apart: the production build against the same build without the audit write, ${o.rounds} alternating rounds each`,
    );
    const [audited, unaudited] = await alternatingPass(sideBySide, [single, firstPage], {
      a: { entry: PRODUCTION_ENTRY, name: 'audited' },
      b: { entry: UNAUDITED_ENTRY, name: 'unaudited', title: 'without the audit write' },
    });
    const audit: BenchReport['audit'] = { audited, unaudited };
    log(
      `statement bounds measured apart: the production build against the same build with prepared statements and connections unbounded, ${o.rounds} alternating rounds each`,
    );
    const [bounded, unbounded] = await alternatingPass(sideBySide, [single, firstPage, (t) => filteredPage(t, fixtures)], {
      a: { entry: PRODUCTION_ENTRY, name: 'bounded' },
      b: { entry: PRODUCTION_ENTRY, name: 'unbounded', env: UNBOUNDED_STATEMENTS, title: 'statements and connections unbounded' },
    });
    const statements: BenchReport['statements'] = { bounded, unbounded };

    log(`the raw anchor: the production build against bench/raw-anchor.ts, ${o.rounds} alternating rounds each`);
    const anchor = await anchorPass(sideBySide, fixtures.meetingIds);

    log(`metrics' cost: the production build against the same with METRICS_PORT=off, ${o.rounds} alternating rounds each`);
    const [withMetrics, withoutMetrics] = await alternatingPass(sideBySide, [single, firstPage], {
      a: { entry: PRODUCTION_ENTRY, name: 'metrics' },
      b: { entry: PRODUCTION_ENTRY, name: 'no-metrics', env: { METRICS_PORT: 'off' }, title: 'METRICS_PORT=off' },
    });
    const metrics: BenchReport['metrics'] = { scrape: metricsScrape, on: withMetrics, off: withoutMetrics };

    log('noisy neighbours: company B beside slow exports, heavy pages, heavy audit reads and an unauthenticated flood');
    const neighbours: BenchReport['neighbours'] = o.skipNeighbours
      ? { skipped: '--skip-neighbours' }
      : await neighboursPass({ db, env, tmp, log, size: { ...NEIGHBOURS_SIZE, duration: o.duration, warmup: o.warmup } });

    log('rate-limit counters in Redis');
    const redis = await redisPass(
      env,
      tmp,
      { connections: o.connections, duration: o.duration, warmup: o.warmup, rounds: o.rounds },
      tenant,
      fixtures.meetingIds,
    );

    const floor = main.find((m) => m.name === FLOOR)!.requests_per_second;
    const partial: Omit<BenchReport, 'targets'> = {
      date,
      commit: gitCommit(),
      machine: describeMachine(),
      database: db.description,
      options: o,
      seeding: { companies: results, seconds: seedSeconds, vacuum_seconds: vacuumSeconds, documents },
      scenarios: main.map((m) => ({ ...m, ratio_to_floor: round(m.requests_per_second / floor, 3) })),
      audit,
      statements,
      redis,
      scaling,
      bulk,
      neighbours,
      feed,
      webhooks,
      anchor,
      compression,
      metrics,
      peak_rss_mb: 0,
      seconds: seconds(began),
    };
    partial.peak_rss_mb = Math.max(...allMeasurements(partial).map((m) => m.peak_rss_mb));
    const report: BenchReport = { ...partial, targets: evaluateTargets(partial) };
    const file = await writeReport(report, o.out, o.docs);
    log(`results in ${file}${o.docs ? ` and ${o.docs}` : ''}`);
    for (const t of report.targets) log(`${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.measured}`);
  } finally {
    await service?.stop();
    await db.close(o.keep, dataDir);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
