/**
 * Noisy neighbours (#48): whether one company's reads stay fast while other companies, each
 * within its quotas, run the worst mix found against the service, side by side in one run:
 *
 * - ten slow exports (two per company, five companies: EXPORT_CONCURRENCY), each over a raw
 *   socket that reads ~100 bytes every few seconds (a paused stream with a 1 KiB high-water
 *   mark: the kernel's receive buffer fills and the server's writes wait on it);
 * - twenty heavy pages at once (`GET /v1/meetings?limit=100&ids=…&include=transcript,evaluation,answers`
 *   on records with 1,000-utterance transcripts), from one company;
 * - six heavy audit reads (`GET /v1/audit-events?resource_id=<a record named in every row>&status=5xx`
 *   over a trail where no row matches), from one company with an `audit.read` client;
 * - an unauthenticated flood (a bad bearer token, from one address).
 *
 * Company B's single read (`GET /v1/meetings/{id}`) and list page (`GET /v1/meetings?limit=20`)
 * are measured quiet, then under that load; readiness is polled throughout and the service's
 * resident memory sampled. Targets: B 0 errors and 0 non-2xx, p99 loaded ≤ 3× quiet, readiness
 * never fails, peak RSS under the deployed heap cap (the API manifest's --max-old-space-size).
 *
 * `npm run bench:neighbours [-- --quick] [--duration S] [--warmup S] [--keep]` runs it alone on a
 * database of its own (results in bench/results/neighbours-<date>.json); `npm run bench` runs it
 * as one of its passes (`--skip-neighbours` leaves it out).
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/app-config';
import { FILTERED_AUDIT_READ_UNITS, INCLUDE_UNITS } from '../src/contract/rate-limit-policies';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase } from './database';
import { createTenant, refreshDocuments, sampleMeetingIds, seedVolume, Tenant } from './dataset';
import { LoadSettings, measure, Measurement, round, Scenario } from './load';
import type { MixPlan, MixResult } from './neighbours-load';
import { issueToken } from './scenarios';
import { deployedNodeOptions, PRODUCTION_ENTRY, RssSampler, ServiceProcess, serviceEnv } from './service';

export interface NeighboursSize {
  /** Meetings of company B (the measured one), of the heavy-page company and of each exporting company. */
  quietMeetings: number;
  heavyMeetings: number;
  exportMeetings: number;
  /** Utterances of every readable transcript of the heavy and exporting companies. */
  utterances: number;
  /** Audit rows naming the one record the audit reads ask about. */
  auditRows: number;
  exporters: number;
  exportsPerCompany: number;
  heavyPages: number;
  auditReads: number;
  floodConnections: number;
  duration: number;
  warmup: number;
}

export const FULL: NeighboursSize = {
  quietMeetings: 1000,
  heavyMeetings: 300,
  exportMeetings: 1000,
  utterances: 1000,
  auditRows: 300_000,
  exporters: 5,
  exportsPerCompany: 2,
  heavyPages: 20,
  auditReads: 6,
  floodConnections: 10,
  duration: 10,
  warmup: 3,
};

/** A small run that checks the bench works (minutes of a shared machine, not a measurement). */
export const QUICK: NeighboursSize = {
  ...FULL,
  quietMeetings: 100,
  heavyMeetings: 100,
  exportMeetings: 100,
  utterances: 300,
  auditRows: 20_000,
  exporters: 2,
  heavyPages: 5,
  auditReads: 2,
  floodConnections: 2,
  duration: 3,
  warmup: 1,
};

export interface NeighboursReport {
  size: NeighboursSize;
  quiet: { single: Measurement; page: Measurement };
  loaded: { single: Measurement; page: Measurement };
  p99_ratio: { single: number; page: number };
  load: {
    heavy_pages: Measurement;
    audit_reads: Measurement;
    flood: Measurement;
    exports: { opened: number; statuses: Record<string, number>; bytes_read: number };
  };
  readiness: { polls: number; failures: number; slowest_ms: number };
  memory: { peak_rss_mb: number; heap_cap_mb: number | null; memory_limit_mb: number | null };
  targets: Array<{ name: string; met: boolean; detail: string }>;
}

export interface NeighboursContext {
  db: BenchDatabase;
  env: NodeJS.ProcessEnv;
  tmp: string;
  size: NeighboursSize;
  log: (line: string) => void;
}

/** Every readable transcript of a company made `n` utterances long (the seeder writes six). */
async function lengthenTranscripts(db: BenchDatabase, tenant: Tenant, n: number): Promise<void> {
  await db.owner.query(
    `UPDATE transcripts SET utterances = (
       SELECT jsonb_agg(jsonb_build_object('speaker', CASE WHEN i % 2 = 0 THEN 'Vendedor' ELSE 'Cliente' END,
         'text', 'Frase ' || i || ': falamos da integração com o CRM, do preço por licença e do prazo de implantação.',
         'start_ms', i * 4000, 'end_ms', i * 4000 + 3500))
       FROM generate_series(0, $2::int - 1) i)
     WHERE company_id = $1`,
    [tenant.internalId, n],
  );
}

/** `rows` audit events of the company, each naming `resource` and answered 200 (so `status=5xx` matches none of them). */
async function fillAuditTrail(db: BenchDatabase, tenant: Tenant, resource: string, rows: number): Promise<void> {
  for (let done = 0; done < rows; done += 50_000) {
    await db.owner.query(
      `INSERT INTO audit_events (occurred_at, request_id, company, client, address, method, route, status, resource_ids)
       SELECT now() - make_interval(secs => g / 100.0), 'bench-' || g, $1, $2, '127.0.0.1', 'GET', 'GET /v1/meetings/{meeting_id}', 200,
              jsonb_build_array($3::text)
       FROM generate_series($4::int, $5::int) g`,
      [tenant.companyId, tenant.clientId, resource, done + 1, Math.min(rows, done + 50_000)],
    );
  }
}

/** `--max-old-space-size` of the deployed NODE_OPTIONS, and the container's memory limit, in MB. */
function deployedMemory(): { heap_cap_mb: number | null; memory_limit_mb: number | null } {
  const heap = /--max-old-space-size=(\d+)/.exec(deployedNodeOptions());
  const limit = /limits:\s*\{\s*memory:\s*(\d+)Mi/.exec(readFileSync(join('deploy', 'kubernetes', 'base', 'api-deployment.yaml'), 'utf8'));
  return { heap_cap_mb: heap ? Number(heap[1]) : null, memory_limit_mb: limit ? Number(limit[1]) : null };
}

/**
 * Starts the noisy mix in a child process (dist/bench/neighbours-load.js): `started` once its
 * clients are running, `result` when its span is over; `stop` ends it early (on a failure).
 */
function startMix(plan: MixPlan): { started: Promise<void>; result: Promise<MixResult>; stop: () => void } {
  const child = spawn(process.execPath, [join(__dirname, 'neighbours-load.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(plan));
  let out = '';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const result = new Promise<MixResult>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('started\n')) markStarted();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as MixResult);
      else reject(new Error(`the noisy mix exited with ${code}: ${out.slice(-500)}`));
    });
  });
  result.catch(() => markStarted());
  return { started, result, stop: () => child.kill('SIGTERM') };
}

/** Polls `/health/ready` every 250 ms: a failure is anything but 200 within the probe's 1 s. */
function pollReadiness(baseUrl: string) {
  const seen = { polls: 0, failures: 0, slowest_ms: 0 };
  const timer = setInterval(() => {
    const started = performance.now();
    fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => {
        seen.polls++;
        seen.slowest_ms = Math.max(seen.slowest_ms, Math.round(performance.now() - started));
        if (res.status !== 200) seen.failures++;
      },
      () => {
        seen.polls++;
        seen.failures++;
        seen.slowest_ms = Math.max(seen.slowest_ms, Math.round(performance.now() - started));
      },
    );
  }, 250);
  return { stop: () => clearInterval(timer), seen };
}

/**
 * What a page with every part costs the `client` and `company` policies: its own unit and its
 * parts' (INCLUDE_UNITS).
 */
const HEAVY_PAGE_UNITS = 1 + INCLUDE_UNITS.transcript + INCLUDE_UNITS.evaluation + INCLUDE_UNITS.answers;

/**
 * Requests a second a company may send at `units` each within the deployed `company` quota (its
 * default, spread over as many clients as the `client` quota needs). The service runs with quotas
 * out of reach, so that B can be measured as fast as it answers; the neighbours pace themselves
 * to what the deployed quotas would let them send ("within their quotas"), at the concurrency of
 * the attack. Without the pace a closed loop sends as much as the machine answers, whatever an
 * answer costs: a cheaper heavy page only meant more of them.
 */
function withinQuota(units: number): number {
  const { limit, windowSeconds } = loadConfig({ NODE_ENV: 'test' }).rateLimits.company;
  return round(limit / windowSeconds / units, 2);
}

/** The pass: seeds its companies into `db`, starts one production service, measures. */
export async function neighboursPass(ctx: NeighboursContext): Promise<NeighboursReport> {
  const { db, env, tmp, size, log } = ctx;
  const seed = async (name: string, meetings: number) => {
    const tenant = await createTenant(db, env, name);
    await seedVolume(env, tenant, { meetings, calls: 0, emails: 0, chats: 0, emailMessages: 1, chatMessages: 1 });
    return tenant;
  };
  log(
    `neighbours: seeding B (${size.quietMeetings} meetings), the heavy pages' company, ${size.exporters} exporting companies, the audit company`,
  );
  const quiet = await seed('Neighbours B (measured)', size.quietMeetings);
  const heavy = await seed('Neighbours heavy pages', size.heavyMeetings);
  const exporters: Tenant[] = [];
  for (let i = 0; i < size.exporters; i++) exporters.push(await seed(`Neighbours exporter ${i + 1}`, size.exportMeetings));
  const auditor = await seed('Neighbours auditor', 10);
  for (const t of [heavy, ...exporters]) await lengthenTranscripts(db, t, size.utterances);
  const [named] = await sampleMeetingIds(db, auditor);
  await fillAuditTrail(db, auditor, named, size.auditRows);
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const quietIds = await sampleMeetingIds(db, quiet);
  const { rows: heavyRows } = await db.owner.query<{ public_id: string }>(
    `SELECT public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' AND transcript_status = 'completed' ORDER BY id LIMIT 100`,
    [heavy.internalId],
  );
  const heavyIds = heavyRows.map((r) => r.public_id).join(',');

  const service = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'neighbours.log'));
  log(`neighbours: service ready at ${service.baseUrl} (pid ${service.pid})`);
  const stops: Array<() => void> = [];
  try {
    const [quietToken, heavyToken, auditToken, ...exportTokens] = await Promise.all(
      [quiet, heavy, auditor, ...exporters].map((t) => issueToken(service.baseUrl, t)),
    );
    const settings = (connections: number, duration = size.duration, warmup = size.warmup): LoadSettings => ({
      baseUrl: service.baseUrl,
      connections,
      duration,
      warmup,
      rss: service.rss,
    });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const single: Scenario = {
      name: 'b_single',
      title: 'B: GET /v1/meetings/{id}',
      path: () => `/v1/meetings/${quietIds[Math.floor(Math.random() * quietIds.length)]}`,
      headers: bearer(quietToken),
    };
    const page: Scenario = {
      name: 'b_page',
      title: 'B: GET /v1/meetings?limit=20',
      path: '/v1/meetings?limit=20',
      headers: bearer(quietToken),
    };
    const logged = (m: Measurement) => {
      log(
        `  ${m.title}: p50 ${m.latency_ms.p50} ms, p99 ${m.latency_ms.p99} ms, errors ${m.errors}, non-2xx ${m.non_2xx}, ${m.requests} requests`,
      );
      return m;
    };

    log('neighbours: B quiet');
    const quietSingle = logged(await measure(single, settings(1)));
    const quietPage = logged(await measure(page, settings(1)));

    log('neighbours: B under the mix (slow exports, heavy pages, heavy audit reads, unauthenticated flood)');
    const readiness = pollReadiness(service.baseUrl);
    stops.push(readiness.stop);
    // A sampler of its own: each measurement resets the service's.
    const memorySampler = new RssSampler(service.pid);
    stops.push(() => memorySampler.stop());
    // The mix runs in a process of its own (neighbours-load.ts): the neighbours' clients never
    // share an event loop with B's, so B's latencies are the service's, not the load generator's.
    // It runs for both of B's measurements, with a margin either side.
    const span = 2 * (size.duration + size.warmup) + 4;
    const mix = startMix({
      baseUrl: service.baseUrl,
      servicePid: service.pid,
      span,
      heavy: {
        token: heavyToken,
        path: `/v1/meetings?limit=100&ids=${heavyIds}&include=transcript,evaluation,answers`,
        connections: size.heavyPages,
        rate: withinQuota(HEAVY_PAGE_UNITS),
      },
      audit: {
        token: auditToken,
        path: `/v1/audit-events?resource_id=${named}&status=5xx`,
        connections: size.auditReads,
        rate: withinQuota(1 + FILTERED_AUDIT_READ_UNITS),
      },
      flood: { connections: size.floodConnections },
      exports: exporters.flatMap((_, i) => Array.from({ length: size.exportsPerCompany }, () => exportTokens[i])),
    });
    stops.push(mix.stop);
    await mix.started;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const loadedSingle = logged(await measure(single, settings(1)));
    const loadedPage = logged(await measure(page, settings(1)));
    const { heavyPages, auditReads, flood, exports } = await mix.result;
    for (const m of [heavyPages, auditReads, flood]) logged(m);
    readiness.stop();
    const peak = memorySampler.peakMb();
    const { statuses, bytes_read: bytesRead } = exports;
    log(
      `  exports: ${JSON.stringify(statuses)}, ${bytesRead} bytes read in all; readiness ${JSON.stringify(readiness.seen)}; peak RSS ${peak} MB`,
    );

    const memory = { peak_rss_mb: peak, ...deployedMemory() };
    const ratio = (loaded: Measurement, q: Measurement) => round(loaded.latency_ms.p99 / Math.max(q.latency_ms.p99, 0.01), 2);
    const p99_ratio = { single: ratio(loadedSingle, quietSingle), page: ratio(loadedPage, quietPage) };
    const targets = [
      {
        name: 'B: 0 errors, 0 non-2xx',
        met: [loadedSingle, loadedPage].every((m) => m.errors === 0 && m.timeouts === 0 && m.non_2xx === 0),
        detail: `single ${JSON.stringify(loadedSingle.status_codes)} errors ${loadedSingle.errors}; page ${JSON.stringify(loadedPage.status_codes)} errors ${loadedPage.errors}`,
      },
      { name: 'B: p99 loaded ≤ 3× quiet', met: p99_ratio.single <= 3 && p99_ratio.page <= 3, detail: JSON.stringify(p99_ratio) },
      {
        name: 'readiness never fails',
        met: readiness.seen.failures === 0 && readiness.seen.polls > 0,
        detail: JSON.stringify(readiness.seen),
      },
      {
        name: 'peak RSS under the deployed heap cap',
        met: memory.heap_cap_mb !== null && peak < memory.heap_cap_mb,
        detail: `${peak} MB against --max-old-space-size=${memory.heap_cap_mb} (container limit ${memory.memory_limit_mb} MiB)`,
      },
    ];
    for (const t of targets) log(`  target ${t.met ? 'met' : 'MISSED'}: ${t.name} (${t.detail})`);
    return {
      size,
      quiet: { single: quietSingle, page: quietPage },
      loaded: { single: loadedSingle, page: loadedPage },
      p99_ratio,
      load: { heavy_pages: heavyPages, audit_reads: auditReads, flood, exports },
      readiness: readiness.seen,
      memory,
      targets,
    };
  } finally {
    for (const stop of stops) stop();
    await service.stop();
  }
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      keep: { type: 'boolean', default: false },
      // Parts of the mix left out, comma-separated (heavy,audit,flood,exports): to see what each costs B.
      without: { type: 'string', default: '' },
    },
  });
  const base = values.quick ? QUICK : FULL;
  const without = new Set(values.without.split(',').filter(Boolean));
  const unknown = [...without].filter((p) => !['heavy', 'audit', 'flood', 'exports'].includes(p));
  if (unknown.length) throw new Error(`--without takes heavy, audit, flood, exports (not ${unknown.join(', ')})`);
  const size = {
    ...base,
    duration: Number(values.duration ?? base.duration),
    warmup: Number(values.warmup ?? base.warmup),
    ...(without.has('heavy') ? { heavyPages: 0 } : {}),
    ...(without.has('audit') ? { auditReads: 0 } : {}),
    ...(without.has('flood') ? { floodConnections: 0 } : {}),
    ...(without.has('exports') ? { exportsPerCompany: 0 } : {}),
  };
  if (!(size.duration > 0 && size.warmup >= 0)) throw new Error('--duration must be positive and --warmup at least 0 (seconds)');
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-neighbours');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  try {
    const report = await neighboursPass({ db, env: serviceEnv(db, tmp), tmp, size, log });
    const result = { date: new Date().toISOString(), quick: values.quick, ...report };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/neighbours-${values.quick ? 'quick-' : ''}${result.date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    await db.close(values.keep, dataDir);
  }
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
