import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import type { VolumeResult } from '../src/seeding/volume-seeder';
import { Measurement, round } from './load';
import { BenchOptions } from './options';
import { deployedNodeOptions } from './service';
import type { DocumentsRefresh } from './dataset';
import type { FeedReport } from './feed';
import type { WebhookLatency, WebhookReport } from './webhooks';
import { FLOOR } from './scenarios';
import type { MetricsScrape } from './metrics';
import type { BulkReport, Throughput } from './bulk';
import type { NeighboursReport } from './neighbours';

export interface Machine {
  cpu: string;
  cores: number;
  memory_gb: number;
  kernel: string;
  node: string;
  /** The Node options every service process ran with (the deployment's: deployedNodeOptions). */
  node_options?: string;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memory_gb: round(totalmem() / 2 ** 30, 1),
    kernel: `Linux ${release()}`,
    node: process.version,
    node_options: deployedNodeOptions(),
  };
}

export interface Target {
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchReport {
  date: string;
  commit: string;
  machine: Machine;
  database: string;
  options: BenchOptions;
  seeding: { companies: VolumeResult[][]; seconds: number; vacuum_seconds: number; documents?: DocumentsRefresh };
  /** The main pass, the floor first; each with its requests/s as a share of the floor's. */
  scenarios: Array<Measurement & { ratio_to_floor: number }>;
  /** The same reads, alternating between the production build and the same build whose fail-closed audit write succeeds at once. */
  audit: { audited: Measurement[]; unaudited: Measurement[] };
  /** The same reads, alternating between the production build and the same build with prepared statements and connections unbounded (before #19). */
  statements?: { bounded: Measurement[]; unbounded: Measurement[] };
  redis: { skipped: string } | { round_trip_p50_ms: number; round_trip_p99_ms: number; in_process: Measurement; redis: Measurement };
  scaling:
    | { skipped: string }
    | { from: number; to: number; seed_seconds: number; vacuum_seconds: number; small: Measurement[]; large: Measurement[] };
  peak_rss_mb: number;
  targets: Target[];
  seconds: number;
  /** The change feed: the triggers' write overhead and the commit-to-reader latency. */
  feed?: FeedReport;
  /** Webhooks through a worker process: latency, beside a slow receiver, and a backlog's throughput. */
  webhooks?: WebhookReport | { skipped: string };
  /** The production build against the raw anchor (bench/raw-anchor.ts), the same reads alternating between them. */
  anchor?: { service: Measurement[]; anchor: Measurement[] };
  /** A page of 100 asked for in each encoding: the bytes of its body on the wire, and the same page alternating between encodings. */
  compression?: { bytes: Record<Encoding, number>; measured: Measurement[] };
  /** #34: the export against the list walk, exports with every part, include's page, memory, examples/sync.mjs. */
  bulk?: BulkReport | { skipped: string };
  /** The noisy-neighbours pass (#48); its own targets are in it (absent from runs before it). */
  neighbours?: NeighboursReport | { skipped: string };
  /** #24: a scrape of /metrics after the main pass, and the reads with metrics against METRICS_PORT=off, alternating. */
  metrics?: { scrape: MetricsScrape; on: Measurement[]; off: Measurement[] };
}

export const ENCODINGS = ['identity', 'gzip', 'br'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** Requests/s of a page of 100 meetings before #23 (the issue's measurement, 80–86 req/s: the upper end). */
export const PAGE_BEFORE_23 = 86;

const byName = (list: Measurement[], name: string): Measurement => {
  const m = list.find((x) => x.name === name);
  if (!m) throw new Error(`no measurement named ${name}`);
  return m;
};

const times = (x: number) => `${round(x, 2)}×`;
/** The sum of a pass's seconds, to a tenth. */
const seconds = (xs: number[]) =>
  round(
    xs.reduce((a, b) => a + b, 0),
    1,
  );
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The feed's throughput at both ends of one pass and its flatness between them (none if the pass did not read the feed). */
function feedTargets(pass: Measurement[], where: string): Target[] {
  const first = pass.find((m) => m.name === 'changes_first_page');
  const deep = pass.find((m) => m.name === 'changes_deep_page');
  if (!first || !deep) return [];
  const depth = deep.title.match(/cursor ([\d,]+) entries deep/)?.[1] ?? 'deep';
  const throughput = [first, deep].map((page) => {
    const entries = page.requests_per_second * 100;
    return {
      target: `change feed ${page === first ? 'from the beginning' : `${depth} entries in`} (${where}): ≥ 20,000 entries/s (pages of 100)`,
      measured: `${Math.round(entries).toLocaleString('en')} entries/s`,
      met: entries >= 20_000,
    };
  });
  const flat = deep.latency_ms.p50 / first.latency_ms.p50;
  return [
    ...throughput,
    {
      target: `change feed flat (${where}): p50 ${depth} entries in ≤ 1.2× first page p50`,
      measured: `${times(flat)} (${deep.latency_ms.p50} ms vs ${first.latency_ms.p50} ms)`,
      met: flat <= 1.2,
    },
  ];
}

const latencyText = (l: WebhookLatency) => `p50 ${l.p50_ms} ms, p99 ${l.p99_ms} ms, ${l.samples} arrived, ${l.missing} missing`;

/** Commit to receiver p50 < 1 s and p99 < 3 s at 100 changes/s; 300 deliveries/s; a 5 s receiver slows no other endpoint. */
function webhookTargets(w: WebhookReport): Target[] {
  const quick = (l: WebhookLatency) => l.p50_ms < 1000 && l.p99_ms < 3000 && l.missing === 0 && l.samples > 0;
  return [
    {
      target: `webhooks: commit to a fast receiver p50 < 1 s, p99 < 3 s (${w.latency.rate} changes/s)`,
      measured: latencyText(w.latency),
      met: quick(w.latency),
    },
    {
      target: 'webhooks: ≥ 300 deliveries/s (a backlog, until every delivery arrived)',
      measured: `${w.throughput.per_second.toLocaleString('en')}/s (${w.throughput.deliveries.toLocaleString('en')} deliveries of ${w.throughput.changes.toLocaleString('en')} changes to ${w.throughput.endpoints} endpoints in ${w.throughput.seconds} s)`,
      met: w.throughput.per_second >= 300 && w.throughput.deliveries === w.throughput.changes * w.throughput.endpoints,
    },
    {
      target: 'webhooks: a receiver answering in 5 s (and one failing) delays no other endpoint (the fast one still p50 < 1 s, p99 < 3 s)',
      measured: `${latencyText(w.beside_slow)}; the slow one answered ${w.beside_slow.slow_answered}, the failing one was tried ${w.beside_slow.failing_attempts} times`,
      met: quick(w.beside_slow),
    },
  ];
}

/** How many times the stored export's MB/s the live one's. */
const ratio = (t: { live: Throughput; stored: Throughput }) => (t.stored.mb_per_second / t.live.mb_per_second).toFixed(2);

const mbps = (t: Throughput) =>
  `${t.mb_per_second} MB/s (${t.records_per_second.toLocaleString('en')} records/s, ${t.records.toLocaleString('en')} records in ${t.seconds} s)`;

/** #34's targets: the export's speed against the list walk and with its parts, include's page, memory, the sync example's requests. */
function bulkTargets(b: BulkReport): Target[] {
  const { walk, export: exported } = b.meetings;
  const ratio = exported.records_per_second / walk.records_per_second;
  const without = b.include_page.without.requests_per_second;
  const withParts = b.include_page.with.requests_per_second;
  const atMillion = b.memory.export.records >= 1_000_000;
  const s = b.sync;
  const allowed = 20 + Math.ceil(s.catch_up.entries / 100);
  return [
    {
      target: 'export of meetings without include ≥ 20,000 records/s',
      measured: `${exported.records_per_second.toLocaleString('en')} records/s (${exported.mb_per_second} MB/s)`,
      met: exported.records_per_second >= 20_000,
    },
    {
      target: 'export of meetings ≥ 3× the records/s of one client walking /v1/meetings?limit=100 (alternating)',
      measured: `${times(ratio)} (${exported.records_per_second.toLocaleString('en')} vs ${walk.records_per_second.toLocaleString('en')} records/s)`,
      met: ratio >= 3,
    },
    {
      target: 'export of meetings and calls with include=evaluation,answers,transcript ≥ 30 MB/s',
      measured: mbps(b.with_parts.recordings),
      met: b.with_parts.recordings.mb_per_second >= 30,
    },
    {
      target: 'export of emails with include=messages ≥ 30 MB/s',
      measured: mbps(b.with_parts.emails),
      met: b.with_parts.emails.mb_per_second >= 30,
    },
    {
      target: 'page of 100 meetings with include=evaluation,answers ≥ 50% of the requests/s without (alternating)',
      measured: `${pct(withParts / without)} (${withParts} vs ${without} req/s)`,
      met: withParts / without >= 0.5,
    },
    {
      target: 'service RSS during a 1,000,000-record export ≤ 64 MB over its size at rest',
      measured: `+${b.memory.export.growth_mb} MB (${b.memory.export.peak_mb} MB peak, ${b.memory.idle_mb} MB at rest; ${b.memory.export.records.toLocaleString('en')} records of the ${b.memory.export.company} company with every part in ${b.memory.export.seconds} s)${atMillion ? '' : ': fewer than 1,000,000 records'}`,
      met: atMillion && b.memory.export.growth_mb <= 64,
    },
    {
      target: 'service RSS during an export read at 1 MB/s ≤ 64 MB over its size at rest',
      measured: `+${b.memory.slow_reader.growth_mb} MB (${b.memory.slow_reader.peak_mb} MB peak; ${Math.round(b.memory.slow_reader.bytes / 1024 / 1024)} MB read in ${b.memory.slow_reader.seconds} s)`,
      met: b.memory.slow_reader.growth_mb <= 64,
    },
    {
      target: 'a complete copy of the main company by examples/sync.mjs and its catch-up ≤ 20 requests plus one per 100 changes caught up',
      measured: `${s.copy.requests} + ${s.catch_up.requests} requests for ${s.copy.objects.toLocaleString('en')} objects and ${s.catch_up.entries.toLocaleString('en')} changes (allowed ${allowed}); the per-record recipe: ${s.per_record_requests.toLocaleString('en')} requests for the copy`,
      met: s.copy.requests + s.catch_up.requests <= allowed,
    },
  ];
}

/** The issue's targets, computed from one run. */
export function evaluateTargets(report: Omit<BenchReport, 'targets'>): Target[] {
  const main = report.scenarios;
  const floor = byName(main, FLOOR);
  const single = byName(main, 'meeting');
  const first = byName(main, 'meetings_first_page');
  const deep = byName(main, 'meetings_deep_page');
  const targets: Target[] = [];
  const singleShare = single.requests_per_second / floor.requests_per_second;
  targets.push({ target: 'single-record read ≥ 40% of the floor’s requests/s', measured: pct(singleShare), met: singleShare >= 0.4 });
  const depth = deep.latency_ms.p50 / first.latency_ms.p50;
  targets.push({
    target: 'deep page p50 ≤ 1.2× first page p50',
    measured: `${times(depth)} (${deep.latency_ms.p50} ms vs ${first.latency_ms.p50} ms)`,
    met: depth <= 1.2,
  });
  // The change feed: entries a second through the API, at the beginning and deep in the main data,
  // and in the scaling company's feed, about a million entries in.
  targets.push(...feedTargets(main, 'main data'));
  if ('small' in report.scaling) targets.push(...feedTargets(report.scaling.large, `${report.scaling.to.toLocaleString('en')} meetings`));
  if (report.feed?.trigger_overhead) {
    const o = report.feed.trigger_overhead;
    targets.push({
      target: `seed:volume with the change triggers ≤ 1.25× without (${o.meetings.toLocaleString('en')} meetings)`,
      measured: `${times(o.ratio)} (${seconds(o.with_seconds)} s vs ${seconds(o.without_seconds)} s in ${o.with_seconds.length} alternating rounds)`,
      met: o.ratio <= 1.25,
    });
  }
  if (report.bulk && 'meetings' in report.bulk) targets.push(...bulkTargets(report.bulk));
  if (report.feed?.storage) {
    const st = report.feed.storage;
    targets.push({
      target: 'change-log rows after compaction ≤ 1.1× the live objects (plus the last 7 days, none here)',
      measured: `${times(st.ratio)} (${st.entries_after.toLocaleString('en')} rows for ${st.objects.toLocaleString('en')} objects; ${st.entries_before.toLocaleString('en')} before, compacted in ${st.compact_seconds} s)`,
      met: st.ratio <= 1.1,
    });
  }
  if (report.feed?.latency) {
    const l = report.feed.latency;
    targets.push({
      target: `change feed: a commit readable p99 < 1 s after it (${l.rate} commits/s)`,
      measured: `p99 ${l.p99_ms} ms, p50 ${l.p50_ms} ms, ${l.samples} seen, ${l.missing} missing`,
      met: l.p99_ms < 1000 && l.missing === 0 && l.samples > 0,
    });
  }
  if (report.webhooks && 'latency' in report.webhooks) targets.push(...webhookTargets(report.webhooks));
  if ('small' in report.scaling) {
    for (const name of ['meetings_first_page', 'meeting']) {
      const [a, b] = [byName(report.scaling.small, name), byName(report.scaling.large, name)];
      const ratio = b.latency_ms.p50 / a.latency_ms.p50;
      targets.push({
        target: `${name === 'meeting' ? 'single-record' : 'list'} p50 at ${report.scaling.to.toLocaleString('en')} meetings ≤ 1.3× at ${report.scaling.from.toLocaleString('en')}`,
        measured: `${times(ratio)} (${b.latency_ms.p50} ms vs ${a.latency_ms.p50} ms)`,
        met: ratio <= 1.3,
      });
    }
  } else {
    targets.push({ target: 'p50 at 1M meetings ≤ 1.3× at 10k', measured: `not measured: ${report.scaling.skipped}`, met: false });
  }
  targets.push(...readTargets(report, single, first));
  targets.push(...metricsTargets(report));
  const everything = allMeasurements(report);
  const errors = everything.reduce((n, m) => n + m.errors, 0);
  const non2xx = everything.reduce((n, m) => n + m.non_2xx, 0);
  targets.push({
    target: 'zero errors and zero non-2xx in every scenario',
    measured: `${errors} errors, ${non2xx} non-2xx in ${everything.reduce((n, m) => n + m.requests, 0).toLocaleString('en')} requests`,
    met: errors === 0 && non2xx === 0,
  });
  targets.push({ target: 'service RSS ≤ 350 MB under load', measured: `${report.peak_rss_mb} MB peak`, met: report.peak_rss_mb <= 350 });
  for (const name of ['meeting', 'meetings_first_page']) {
    const share = byName(report.audit.audited, name).requests_per_second / byName(report.audit.unaudited, name).requests_per_second;
    targets.push({
      target: `audited ${name === 'meeting' ? 'single-record reads' : 'list pages'} ≥ 85% of the same reads without the audit write`,
      measured: pct(share),
      met: share >= 0.85,
    });
  }
  for (const bounded of report.statements?.bounded ?? []) {
    const share = bounded.requests_per_second / byName(report.statements!.unbounded, bounded.name).requests_per_second;
    targets.push({
      target: `${bounded.title} with bounded statements and connections ≥ 95% of the same unbounded`,
      measured: pct(share),
      met: share >= 0.95,
    });
  }
  return targets;
}

/** #24: every metric live in a scrape during the bench, no unbounded label, and metrics costing under 3%. */
function metricsTargets(report: Omit<BenchReport, 'targets'>): Target[] {
  if (!report.metrics) return [];
  const { scrape, on, off } = report.metrics;
  const worker = report.webhooks && 'metrics' in report.webhooks ? report.webhooks.metrics : undefined;
  const scrapes = [
    { of: 'the API', scrape },
    { of: 'the worker', scrape: worker },
  ];
  const targets: Target[] = scrapes.map(({ of, scrape: s }) => {
    const dead = s?.required.filter((r) => !r.live) ?? [];
    return {
      target: `/metrics of ${of} shows every metric required of it with a live value during the bench`,
      measured: !s
        ? 'not scraped'
        : dead.length
          ? `not live: ${dead.map((d) => d.name).join(', ')}`
          : `${s.required.length} live of ${s.families} families, ${s.bytes.toLocaleString('en')} bytes`,
      met: !!s && dead.length === 0,
    };
  });
  const unbounded = scrapes.flatMap(({ scrape: s }) => s?.unbounded ?? []);
  targets.push({
    target: 'no metric label carries an id, an address or a query',
    measured: unbounded.length ? unbounded.join(', ') : 'none',
    met: unbounded.length === 0,
  });
  for (const m of on) {
    const share = m.requests_per_second / byName(off, m.name).requests_per_second;
    targets.push({ target: `${m.title} with metrics ≥ 97% of the same with METRICS_PORT=off`, measured: pct(share), met: share >= 0.97 });
  }
  return targets;
}

/** #23: the reads against the anchor, the page against its number before, its tail, and its bytes compressed. */
function readTargets(report: Omit<BenchReport, 'targets'>, single: Measurement, first: Measurement): Target[] {
  const targets: Target[] = [];
  const gain = first.requests_per_second / PAGE_BEFORE_23;
  targets.push({
    target: `page of 100 meetings ≥ 3× its requests/s before #23 (${PAGE_BEFORE_23} req/s)`,
    measured: `${times(gain)} (${first.requests_per_second} req/s)`,
    met: gain >= 3,
  });
  const tail = first.latency_ms.p99 / single.latency_ms.p99;
  targets.push({
    target: 'page of 100 meetings p99 ≤ 5× the single read’s p99',
    measured: `${times(tail)} (${first.latency_ms.p99} ms vs ${single.latency_ms.p99} ms)`,
    met: tail <= 5,
  });
  if (report.anchor) {
    for (const [name, share] of [
      ['meeting', 0.6],
      ['meetings_first_page', 0.5],
    ] as const) {
      const ours = byName(report.anchor.service, name).requests_per_second;
      const anchor = byName(report.anchor.anchor, name).requests_per_second;
      targets.push({
        target: `${name === 'meeting' ? 'single meeting read' : 'page of 100 meetings'} ≥ ${pct(share)} of the raw anchor’s requests/s`,
        measured: `${pct(ours / anchor)} (${ours} vs ${anchor} req/s)`,
        met: ours / anchor >= share,
      });
    }
  }
  if (report.compression) {
    const b = report.compression.bytes;
    targets.push({
      target: 'page of 100 meetings with Accept-Encoding: gzip ≤ 15% of its bytes uncompressed',
      measured: `${pct(b.gzip / b.identity)} (${b.gzip.toLocaleString('en')} of ${b.identity.toLocaleString('en')} bytes; br ${b.br.toLocaleString('en')})`,
      met: b.gzip / b.identity <= 0.15,
    });
  }
  return targets;
}

export function allMeasurements(report: Omit<BenchReport, 'targets'>): Measurement[] {
  return [
    ...report.scenarios,
    ...report.audit.audited,
    ...report.audit.unaudited,
    ...(report.statements ? [...report.statements.bounded, ...report.statements.unbounded] : []),
    ...('in_process' in report.redis ? [report.redis.in_process, report.redis.redis] : []),
    ...('small' in report.scaling ? [...report.scaling.small, ...report.scaling.large] : []),
    ...(report.anchor ? [...report.anchor.service, ...report.anchor.anchor] : []),
    ...(report.compression?.measured ?? []),
    ...(report.metrics ? [...report.metrics.on, ...report.metrics.off] : []),
    ...(report.bulk && 'meetings' in report.bulk ? [report.bulk.include_page.without, report.bulk.include_page.with] : []),
  ];
}

function table(rows: Measurement[], floorRps?: number): string {
  const head = `| Scenario | req/s | p50 ms | p99 ms | errors | non-2xx |${floorRps ? ' × floor |' : ''} peak RSS MB |`;
  const rule = `|---|--:|--:|--:|--:|--:|${floorRps ? '--:|' : ''}--:|`;
  const body = rows.map(
    (m) =>
      `| ${m.title.replace(/\|/g, '\\|')} | ${m.requests_per_second.toLocaleString('en')} | ${m.latency_ms.p50} | ${m.latency_ms.p99} | ${m.errors} | ${m.non_2xx} |` +
      `${floorRps ? ` ${round(m.requests_per_second / floorRps, 2)} |` : ''} ${m.peak_rss_mb} |`,
  );
  return [head, rule, ...body].join('\n');
}

/** The run as Markdown: what `docs/BENCHMARKS.md` shows between its markers. */
export function renderMarkdown(report: BenchReport): string {
  const o = report.options;
  const m = report.machine;
  const floor = byName(report.scenarios, FLOOR).requests_per_second;
  const seeded = report.seeding.companies.flat();
  const sum = (f: (r: VolumeResult) => number) => seeded.reduce((n, r) => n + f(r), 0).toLocaleString('en');
  const scaling = report.scaling;
  const lines = [
    `Run of ${report.date} (commit \`${report.commit}\`), ${Math.round(report.seconds / 60)} min end to end.`,
    '',
    `- Machine: ${m.cores} × ${m.cpu}, ${m.memory_gb} GB RAM, ${m.kernel}, Node ${m.node}. The load generator (autocannon, in the bench process), the service and PostgreSQL share these ${m.cores} cores.${m.node_options ? ` Every service process runs with \`NODE_OPTIONS=${m.node_options}\`, as deployed.` : ''}`,
    `- Database: ${report.database}.`,
    `- Data: ${sum((r) => r.meetings)} meetings, ${sum((r) => r.calls)} calls, ${sum((r) => r.emails)} e-mail conversations × ${o.emailMessages} messages, ${sum((r) => r.chats)} chats × ${o.chatMessages} messages across ${o.companies} companies (the measured one holds half), seeded in ${report.seeding.seconds} s, then \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` in ${report.seeding.vacuum_seconds} s${report.seeding.documents ? `; the read model (\`documents:refresh\`) written in ${report.seeding.documents.seconds} s for ${report.seeding.documents.rendered.toLocaleString('en')} records` : ''}.`,
    `- Load: ${o.connections} connections, ${o.warmup} s of warm-up thrown away, then ${o.duration} s measured per scenario. Latency percentiles are over every response of the measured seconds.`,
    '',
    '### Main pass (production build, audited, in-process rate-limit counters)',
    '',
    table(report.scenarios, floor),
    '',
    '### Audit write measured apart',
    '',
    `The production build against the same build started by \`bench/unaudited-server.ts\`, whose only difference is that the fail-closed audit write resolves at once (the event is still built). Both run side by side; each scenario alternates between them for ${o.rounds} rounds (A, B, A, B), and each line sums its rounds:`,
    '',
    table(report.audit.audited.flatMap((m) => [m, byName(report.audit.unaudited, m.name)])),
    '',
    ...(report.statements
      ? [
          '### Statement bounds measured apart',
          '',
          `The production build (at most \`DB_MAX_PREPARED_STATEMENTS\` = 64 prepared statements per connection, connections replaced after 10,000 uses or 30 minutes) against the same build with those bounds lifted (1,000 statements, a day, a billion uses: the service before they existed). Both run side by side; each scenario alternates between them for ${o.rounds} rounds, and each line sums its rounds:`,
          '',
          table(report.statements.bounded.flatMap((m) => [m, byName(report.statements!.unbounded, m.name)])),
          '',
        ]
      : []),
    ...(report.anchor
      ? [
          '### Against the raw anchor',
          '',
          `The production build against \`bench/raw-anchor.ts\` (\`node:http\` and \`pg\`, no framework: the token, the client's state, the tenant transaction, the service's own statement, the same envelope, the audit row committed in batches before the answer). Both run side by side; each scenario alternates between them for ${o.rounds} rounds, and each line sums its rounds:`,
          '',
          table(report.anchor.service.flatMap((m) => [m, { ...byName(report.anchor!.anchor, m.name), title: `${m.title}, raw anchor` }])),
          '',
        ]
      : []),
    ...(report.compression
      ? [
          '### Compression',
          '',
          `A page of 100 meetings: ${ENCODINGS.map((e) => `${report.compression!.bytes[e].toLocaleString('en')} bytes as ${e}`).join(', ')}. The same page asked for in each encoding, alternating for ${o.rounds} rounds:`,
          '',
          table(report.compression.measured),
          '',
        ]
      : []),
    ...(report.metrics
      ? [
          '### Metrics',
          '',
          `A scrape of the production service's \`/metrics\` after the main pass: ${report.metrics.scrape.families} metric families, ${report.metrics.scrape.bytes.toLocaleString('en')} bytes; ${report.metrics.scrape.required.filter((r) => r.live).length} of the ${report.metrics.scrape.required.length} required ones live (${report.metrics.scrape.required.map((r) => `\`${r.name}\` ${r.samples}`).join(', ')} samples). ${report.webhooks && 'metrics' in report.webhooks && report.webhooks.metrics ? `The worker's, scraped while the webhook backlog drained: ${report.webhooks.metrics.families} families; ${report.webhooks.metrics.required.map((r) => `\`${r.name}\` ${r.live ? 'live' : 'NOT live'}`).join(', ')}. ` : ''}The production build against the same with \`METRICS_PORT=off\` (nothing recorded), side by side, alternating for ${o.rounds} rounds:`,
          '',
          table(report.metrics.on.flatMap((m) => [m, byName(report.metrics!.off, m.name)])),
          '',
        ]
      : []),
    '### Rate-limit counters in Redis',
    '',
    'skipped' in report.redis
      ? `Skipped: ${report.redis.skipped}.`
      : [
          `One Redis round trip (the rate-limit script for two counters, sequential, from the bench process): p50 ${report.redis.round_trip_p50_ms} ms, p99 ${report.redis.round_trip_p99_ms} ms. Then the production build with counters in process against the same with \`REDIS_URL\`, side by side, alternating for ${o.rounds} rounds:`,
          '',
          table([report.redis.in_process, report.redis.redis]),
        ].join('\n'),
    '',
    '### Scaling pass',
    '',
    'skipped' in scaling
      ? `Skipped: ${scaling.skipped}.`
      : [
          `A company of its own, measured at ${scaling.from.toLocaleString('en')} meetings, then grown to ${scaling.to.toLocaleString('en')} (seeded in ${scaling.seed_seconds} s, \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` in ${scaling.vacuum_seconds} s) and measured again, beside the main data.`,
          '',
          table([
            ...scaling.small.map((x) => ({ ...x, title: `${x.title} at ${scaling.from.toLocaleString('en')} meetings` })),
            ...scaling.large.map((x) => ({ ...x, title: `${x.title} at ${scaling.to.toLocaleString('en')} meetings` })),
          ]),
        ].join('\n'),
    '',
    ...(report.webhooks
      ? [
          '### Webhooks',
          '',
          'skipped' in report.webhooks
            ? `Skipped: ${report.webhooks.skipped}.`
            : `A worker process of its own (\`dist/src/worker.main.js\`) and receivers in the bench process. A writer commits ${report.webhooks.latency.rate} changes a second, one meeting each, for ${report.webhooks.latency.seconds} s: commit to first arrival at a receiver that answers at once ${latencyText(report.webhooks.latency)}; the same again while another endpoint of the company answers every event in 5 s and a third answers 503 (its retries due all along): ${latencyText(report.webhooks.beside_slow)}. Then ${report.webhooks.throughput.changes.toLocaleString('en')} changes in one transaction to ${report.webhooks.throughput.endpoints} endpoints: ${report.webhooks.throughput.deliveries.toLocaleString('en')} deliveries in ${report.webhooks.throughput.seconds} s, ${report.webhooks.throughput.per_second}/s.`,
          '',
        ]
      : []),
    ...(report.bulk ? bulkMarkdown(report.bulk, o.rounds) : []),
    '### Targets',
    '',
    '| Target | Measured | Met |',
    '|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
  ];
  return lines.join('\n');
}

/** The bulk pass (#34) as a section of the results. */
function bulkMarkdown(b: BulkReport | { skipped: string }, rounds: number): string[] {
  if ('skipped' in b) return ['### Bulk', '', `Skipped: ${b.skipped}.`, ''];
  const row = (name: string, t: Throughput) =>
    `| ${name} | ${t.requests.toLocaleString('en')} | ${t.records.toLocaleString('en')} | ${(t.bytes / 1024 / 1024).toFixed(1)} | ${t.seconds} | ${t.records_per_second.toLocaleString('en')} | ${t.mb_per_second} |`;
  const s = b.sync;
  return [
    '### Bulk',
    '',
    `The main company, through the production service, ${rounds} rounds each (summed); the list walk and the export of the meetings alternate. Bytes are NDJSON or JSON as sent (no compression asked).`,
    '',
    '| Read | requests | records | MB | seconds | records/s | MB/s |',
    '|---|--:|--:|--:|--:|--:|--:|',
    row('one client walking `/v1/meetings?limit=100`', b.meetings.walk),
    row('`/v1/export?types=meeting`', b.meetings.export),
    row('`/v1/export?types=meeting,call&include=evaluation,answers,transcript`', b.with_parts.recordings),
    row('`/v1/export?types=email&include=messages`', b.with_parts.emails),
    row('`/v1/export?types=chat&include=messages`', b.with_parts.chats),
    ...(b.read_model
      ? [
          row('… e-mails, read model emptied (rendered live)', b.read_model.emails.live),
          row('… e-mails, read model written again', b.read_model.emails.stored),
          row('… chats, read model emptied (rendered live)', b.read_model.chats.live),
          row('… chats, read model written again', b.read_model.chats.stored),
          '',
          `The read model of conversations, side by side (alternating rounds in this run): e-mails ${ratio(b.read_model.emails)}× and chats ${ratio(b.read_model.chats)}× the MB/s of the same export rendered live.`,
        ]
      : []),
    '',
    `A page of 100 meetings with and without \`include=evaluation,answers\`, alternating:`,
    '',
    table([b.include_page.without, b.include_page.with]),
    '',
    `Service memory: ${b.memory.idle_mb} MB at rest; ${b.memory.export.peak_mb} MB at most during the whole export of the ${b.memory.export.company} company with every part (${b.memory.export.records.toLocaleString('en')} records in ${b.memory.export.seconds} s); ${b.memory.slow_reader.peak_mb} MB at most while a reader took an export at 1 MB/s for ${b.memory.slow_reader.seconds} s.`,
    '',
    `\`examples/sync.mjs\`: a complete copy of the main company in ${s.copy.requests} requests and ${s.copy.seconds} s (${s.copy.exported.toLocaleString('en')} records exported, ${s.copy.objects.toLocaleString('en')} objects with the messages); after \`seed:activity\`, the catch-up read ${s.catch_up.entries.toLocaleString('en')} entries in ${s.catch_up.pages} pages with ${s.catch_up.requests} requests in ${s.catch_up.seconds} s. The per-record recipe (every list page, three parts per meeting and call, each conversation's message pages) takes ${s.per_record_requests.toLocaleString('en')} requests for the same copy (counted from the data).`,
    '',
  ];
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Writes `<out>/<date>.json` and, unless `docs` is '', replaces the results section of that Markdown file. */
export async function writeReport(report: BenchReport, out: string, docs: string): Promise<string> {
  await mkdir(out, { recursive: true });
  const file = join(out, `${report.date.slice(0, 10)}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  if (!docs) return file;
  const section = `${START}\n${renderMarkdown(report)}\n${END}`;
  const current = existsSync(docs) ? await readFile(docs, 'utf8') : '# Benchmarks\n\n';
  const next = current.includes(START)
    ? current.slice(0, current.indexOf(START)) + section + current.slice(current.indexOf(END) + END.length)
    : `${current.trimEnd()}\n\n${section}\n`;
  await mkdir(dirname(docs), { recursive: true });
  await writeFile(docs, next);
  return file;
}

export function gitCommit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/**
 * A single-question bench's report (bench:feed-types, bench:webhook-deliveries): written to
 * bench/results/<name>-<its date>.json and printed on stdout; the path written.
 */
export async function writeResult(name: string, report: { date: string }): Promise<string> {
  const out = join(__dirname, '..', '..', 'bench', 'results', `${name}-${report.date.slice(0, 10)}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  await writeFile(out, text);
  process.stdout.write(text);
  return out;
}
