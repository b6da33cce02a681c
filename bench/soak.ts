import 'reflect-metadata';
import autocannon from 'autocannon';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase } from './database';
import { createTenant, prepareFixtures, seedVolume } from './dataset';
import { round } from './load';
import { issueToken, mainScenarios, preflight } from './scenarios';
import { PRODUCTION_ENTRY, residentMb, ServiceProcess, serviceEnv } from './service';

/**
 * `npm run bench:soak`: mixed traffic against the production build for `--minutes` (10), then
 * three verdicts: no 5xx (nor connection errors), RSS after warm-up grows by less than 10%, and
 * the audit trail holds exactly one row per 200 answer of the soak. Exits 1 when one fails.
 */
const began = Date.now();
const log = (line: string) => process.stdout.write(`[soak ${String(Math.round((Date.now() - began) / 1000)).padStart(4)} s] ${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      'warmup-minutes': { type: 'string', default: '2' },
      connections: { type: 'string', default: '20' },
      out: { type: 'string', default: 'bench/results' },
    },
  });
  const minutes = Number(values.minutes);
  const warmupMinutes = Number(values['warmup-minutes']);
  const connections = Number(values.connections);
  if (!(minutes > 0 && warmupMinutes >= 0 && warmupMinutes < minutes && Number.isInteger(connections) && connections > 0)) {
    throw new Error('usage: npm run bench:soak -- [--minutes 10] [--warmup-minutes 2] [--connections 20] [--out DIR]');
  }
  const tmp = join(String(values.out), 'tmp');
  await mkdir(tmp, { recursive: true });
  const dataDir = join(tmp, 'soak-postgres');
  const db = await BenchDatabase.open(dataDir, log);
  let service: ServiceProcess | undefined;
  try {
    const env = serviceEnv(db, tmp);
    const tenant = await createTenant(db, env, 'Soak company');
    await seedVolume(env, tenant, { meetings: 20_000, calls: 5_000, emails: 2_000, chats: 2_000, emailMessages: 10, chatMessages: 20 });
    await db.vacuumAnalyze();
    const fixtures = await prepareFixtures(db, tenant, env.CURSOR_SECRET!, 10_000);
    service = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'soak.log'));
    const token = await issueToken(service.baseUrl, tenant);
    // Everything but the floor, in turn on every connection: reads of every kind and token requests.
    const scenarios = mainScenarios(tenant, token, fixtures).filter((s) => s.name !== 'health_live');
    await preflight(service.baseUrl, scenarios, fixtures, 20);

    // A gap, so that no request of the checks above arrives inside the soak's window.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const samples: Array<{ second: number; rss: number }> = [];
    const started = Date.now();
    const pid = service.pid;
    const sampler = setInterval(() => samples.push({ second: Math.round((Date.now() - started) / 1000), rss: residentMb(pid).rss }), 5000);
    log(`soaking for ${minutes} min with ${connections} connections over ${scenarios.length} kinds of request`);
    const result = await autocannon({
      url: service.baseUrl,
      connections,
      duration: minutes * 60,
      timeout: 10,
      requests: scenarios.map((s) => {
        const path = s.path;
        const base = { method: s.method ?? 'GET', headers: s.headers, body: s.body } as const;
        return typeof path === 'string'
          ? { ...base, path }
          : { ...base, setupRequest: (r: autocannon.Request) => ({ ...r, path: path() }) };
      }),
    });
    clearInterval(sampler);
    // Requests the load generator hung up on at its end are still being read and audited: let
    // them finish, then stop the service, which flushes its log and the audit writer's queue.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await service.stop();
    const { rows: audited } = await db.owner.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_events WHERE occurred_at >= to_timestamp($1::double precision / 1000)`,
      [started],
    );
    const served = await servedSince(join(tmp, 'soak.log'), started);

    const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
    const ok = codes['200'] ?? 0;
    const fiveXx = Object.entries(codes)
      .filter(([code]) => code.startsWith('5'))
      .reduce((n, [, c]) => n + c, 0);
    // A leak is a trend, not a garbage collector's sawtooth: the median of the minute after
    // warm-up against the median of the last minute.
    const warmupEnd = warmupMinutes * 60;
    const end = minutes * 60;
    const baseline = median(samples.filter((s) => s.second >= warmupEnd && s.second < warmupEnd + 60).map((s) => s.rss));
    const last = median(samples.filter((s) => s.second >= end - 60).map((s) => s.rss));
    const peak = Math.max(...samples.map((s) => s.rss));
    const growth = baseline ? (last - baseline) / baseline : 0;
    const auditRows = audited[0].n;
    const verdicts = [
      {
        check: 'no 5xx and no connection errors',
        measured: `${fiveXx} 5xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        met: fiveXx === 0 && result.errors === 0,
      },
      {
        check: 'RSS growth after warm-up < 10%',
        measured: `median ${baseline} MB in the minute after warm-up → ${last} MB in the last minute (${round(growth * 100, 1)}%), peak ${peak} MB`,
        met: growth < 0.1,
      },
      {
        check: 'audit rows = 200 answers',
        measured: `${auditRows} rows; the service answered ${served.ok} with 200, and read and audited ${served.aborted} whose client hung up at the end (${ok} 200s reached the load generator)`,
        met: auditRows === served.ok + served.aborted && ok <= served.ok,
      },
    ];
    const report = {
      date: new Date(began).toISOString(),
      minutes,
      warmup_minutes: warmupMinutes,
      connections,
      requests: Object.values(codes).reduce((a, b) => a + b, 0),
      requests_per_second: round(Object.values(codes).reduce((a, b) => a + b, 0) / result.duration, 1),
      latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
      status_codes: codes,
      errors: result.errors,
      rss_mb: samples,
      audit_rows: auditRows,
      verdicts,
    };
    const file = join(String(values.out), `soak-${report.date.slice(0, 10)}.json`);
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`${report.requests} requests (${report.requests_per_second}/s), status codes ${JSON.stringify(codes)}; results in ${file}`);
    for (const v of verdicts) log(`${v.met ? 'met   ' : 'FAILED'} ${v.check}: ${v.measured}`);
    process.exitCode = verdicts.every((v) => v.met) ? 0 : 1;
  } finally {
    await service?.stop();
    await db.close(false, dataDir);
  }
}

function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * From the service's own request log (one line per request, pino-http): requests arrived
 * since `since` answered 200, and requests whose client hung up before the answer was sent (they
 * were read, and audited, all the same).
 */
async function servedSince(logFile: string, since: number): Promise<{ ok: number; aborted: number }> {
  let ok = 0;
  let aborted = 0;
  for (const line of (await readFile(logFile, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { time?: number; responseTime?: number; msg?: string; res?: { statusCode?: number | null } };
    // By arrival, as the audit trail's occurred_at: a line is written when its answer is handed
    // to the socket, which may be after the client already has it.
    if ((entry.time ?? 0) - (entry.responseTime ?? 0) < since) continue;
    if (entry.msg === 'request completed' && entry.res?.statusCode === 200) ok++;
    if (entry.msg === 'request aborted') aborted++;
  }
  return { ok, aborted };
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
