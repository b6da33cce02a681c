import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Measurement, percentiles } from './load';
import { parseBenchOptions } from './options';
import { BenchReport, evaluateTargets, PAGE_BEFORE_23, renderMarkdown, writeReport } from './report';

const m = (name: string, rps: number, p50: number, extra: Partial<Measurement> = {}): Measurement => ({
  name,
  title: `GET ${name}`,
  requests: rps * 10,
  requests_per_second: rps,
  latency_ms: { p50, p90: p50, p99: p50 * 2, max: p50 * 3 },
  errors: 0,
  timeouts: 0,
  non_2xx: 0,
  status_codes: { '200': rps * 10 },
  peak_rss_mb: 200,
  ...extra,
});

/** A run that meets every target exactly at its bound. */
function report(changes: (r: Omit<BenchReport, 'targets'>) => void = () => undefined): Omit<BenchReport, 'targets'> {
  const r: Omit<BenchReport, 'targets'> = {
    date: '2026-11-22T10:00:00.000Z',
    commit: 'abc1234',
    machine: { cpu: 'test', cores: 2, memory_gb: 4, kernel: 'Linux', node: 'v20' },
    database: 'PostgreSQL',
    options: parseBenchOptions([]),
    seeding: { companies: [], seconds: 1, vacuum_seconds: 1 },
    scenarios: [
      m('health_live', 1000, 10),
      m('meeting', 400, 20),
      m('meetings_first_page', PAGE_BEFORE_23 * 3, 100),
      m('meetings_deep_page', 90, 120),
    ].map((x) => ({ ...x, ratio_to_floor: x.requests_per_second / 1000 })),
    anchor: {
      service: [m('meeting', 60, 20), m('meetings_first_page', 50, 100)],
      anchor: [m('meeting', 100, 20), m('meetings_first_page', 100, 100)],
    },
    compression: { bytes: { identity: 100_000, gzip: 15_000, br: 10_000 }, measured: [] },
    audit: {
      audited: [m('meeting', 85, 20), m('meetings_first_page', 85, 100)],
      unaudited: [m('meeting', 100, 20), m('meetings_first_page', 100, 100)],
    },
    redis: { skipped: 'no redis' },
    scaling: {
      from: 10_000,
      to: 1_000_000,
      seed_seconds: 1,
      vacuum_seconds: 1,
      small: [m('meetings_first_page', 100, 100), m('meeting', 400, 20)],
      large: [m('meetings_first_page', 100, 130), m('meeting', 400, 26)],
    },
    peak_rss_mb: 350,
    seconds: 600,
  };
  changes(r);
  return r;
}

const verdicts = (r: Omit<BenchReport, 'targets'>) => evaluateTargets(r).map((t) => t.met);

describe('bench targets: statement bounds', () => {
  const withStatements = (boundedRps: number) =>
    report((r) => {
      r.statements = { bounded: [m('meeting', boundedRps, 20)], unbounded: [m('meeting', 100, 20)] };
    });

  it('holds bounded statements to 95% of the same reads unbounded, as a target of its own', () => {
    const targets = evaluateTargets(withStatements(95)).filter((t) => t.target.includes('bounded statements'));
    expect(targets).toEqual([{ target: expect.stringContaining('GET meeting'), measured: '95%', met: true }]);
    expect(evaluateTargets(withStatements(94.9)).find((t) => t.target.includes('bounded statements'))!.met).toBe(false);
  });

  it('renders the pass beside the others', () => {
    expect(renderMarkdown({ ...withStatements(97), targets: [] })).toContain('### Statement bounds measured apart');
  });
});

describe('bench targets', () => {
  /** The targets in the order evaluateTargets lists them (no feed, webhooks or statement passes in this report). */
  const ORDER = [
    'single read / floor',
    'deep page',
    'scaling list',
    'scaling single',
    'page 3x before',
    'page p99 / single p99',
    'single / anchor',
    'page / anchor',
    'gzip bytes',
    'errors',
    'RSS',
    'audited single',
    'audited pages',
  ] as const;

  it('meets every target at its bound', () => {
    expect(verdicts(report())).toEqual(ORDER.map(() => true));
  });

  it.each<[string, (r: Omit<BenchReport, 'targets'>) => void, (typeof ORDER)[number]]>([
    ['single read under 40% of the floor', (r) => (r.scenarios[1].requests_per_second = 399), 'single read / floor'],
    ['deep page p50 over 1.2× the first page', (r) => (r.scenarios[3].latency_ms.p50 = 120.5), 'deep page'],
    ['list p50 at the large size over 1.3×', (r) => 'large' in r.scaling && (r.scaling.large[0].latency_ms.p50 = 131), 'scaling list'],
    ['single p50 at the large size over 1.3×', (r) => 'large' in r.scaling && (r.scaling.large[1].latency_ms.p50 = 27), 'scaling single'],
    [
      'page of 100 under 3× its number before #23',
      (r) => (r.scenarios[2].requests_per_second = PAGE_BEFORE_23 * 3 - 0.1),
      'page 3x before',
    ],
    ['page p99 over 5× the single read p99', (r) => (r.scenarios[2].latency_ms.p99 = 200.1), 'page p99 / single p99'],
    ['single read under 60% of the anchor', (r) => (r.anchor!.service[0].requests_per_second = 59.9), 'single / anchor'],
    ['page under 50% of the anchor', (r) => (r.anchor!.service[1].requests_per_second = 49.9), 'page / anchor'],
    ['gzip page over 15% of its bytes', (r) => (r.compression!.bytes.gzip = 15_001), 'gzip bytes'],
    ['one error anywhere (here in the scaling pass)', (r) => 'small' in r.scaling && (r.scaling.small[1].errors = 1), 'errors'],
    ['one non-2xx anywhere (here in the audit pass)', (r) => (r.audit.unaudited[1].non_2xx = 1), 'errors'],
    ['one error against the anchor', (r) => (r.anchor!.anchor[0].errors = 1), 'errors'],
    ['RSS over 350 MB', (r) => (r.peak_rss_mb = 351), 'RSS'],
    ['audited single reads under 85%', (r) => (r.audit.audited[0].requests_per_second = 84.9), 'audited single'],
    ['audited pages under 85%', (r) => (r.audit.audited[1].requests_per_second = 84.9), 'audited pages'],
  ])('misses exactly one target: %s', (_name, change, missed) => {
    expect(verdicts(report(change))).toEqual(ORDER.map((t) => t !== missed));
  });

  it('counts a skipped scaling pass as a missed target, saying why', () => {
    const targets = evaluateTargets(report((r) => (r.scaling = { skipped: '--scale-to 0' })));
    expect(targets.find((t) => t.target.startsWith('p50 at 1M'))).toEqual(
      expect.objectContaining({ met: false, measured: 'not measured: --scale-to 0' }),
    );
  });
});

describe('bench report', () => {
  it('takes nearest-rank percentiles', () => {
    expect(percentiles([5, 1, 4, 2, 3, 6, 7, 8, 9, 10])).toEqual({ p50: 5, p90: 9, p99: 10, max: 10 });
    expect(percentiles([])).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 });
  });

  it('writes the JSON and replaces only the results section of the document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    const docs = join(dir, 'BENCHMARKS.md');
    await writeFile(
      docs,
      '# Benchmarks\n\nAnalysis before.\n\n<!-- bench:results:start -->\nold table\n<!-- bench:results:end -->\n\nAnalysis after.\n',
    );
    const full = { ...report(), targets: evaluateTargets(report()) };
    const file = await writeReport(full, join(dir, 'results'), docs);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(full)));
    const text = await readFile(docs, 'utf8');
    expect(text).toContain('Analysis before.');
    expect(text).toContain('Analysis after.');
    expect(text).not.toContain('old table');
    expect(text).toContain(renderMarkdown(full));
    expect(text.match(/bench:results:start/g)).toHaveLength(1);
  });

  it('adds the section to a document without one, and leaves documents alone when told to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    const docs = join(dir, 'BENCHMARKS.md');
    await writeFile(docs, '# Benchmarks\n\nNotes.\n');
    const full = { ...report(), targets: evaluateTargets(report()) };
    await writeReport(full, dir, docs);
    expect(await readFile(docs, 'utf8')).toMatch(
      /^# Benchmarks\n\nNotes\.\n\n<!-- bench:results:start -->\n[\s\S]+<!-- bench:results:end -->\n$/,
    );
    await writeFile(docs, 'untouched');
    await writeReport(full, dir, '');
    expect(await readFile(docs, 'utf8')).toBe('untouched');
  });
});

describe('bench targets: the change feed', () => {
  const withFeed = (firstRps: number, deepRps: number, deepP50: number) =>
    report((r) => {
      r.scenarios.push(
        { ...m('changes_first_page', firstRps, 50), ratio_to_floor: 0 },
        { ...m('changes_deep_page', deepRps, deepP50), ratio_to_floor: 0 },
      );
    });
  const feedVerdicts = (r: Omit<BenchReport, 'targets'>) =>
    evaluateTargets(r)
      .filter((t) => t.target.startsWith('change feed'))
      .map((t) => t.met);

  it('meets all three at their bounds: 200 pages of 100 a second at both depths, the deep page 1.2× the first at most', () => {
    expect(feedVerdicts(withFeed(200, 200, 60))).toEqual([true, true, true]);
  });

  it('misses each one alone', () => {
    expect(feedVerdicts(withFeed(199, 200, 60))).toEqual([false, true, true]);
    expect(feedVerdicts(withFeed(200, 199, 60))).toEqual([true, false, true]);
    expect(feedVerdicts(withFeed(200, 200, 61))).toEqual([true, true, false]);
  });

  it('adds no feed target to a run that did not measure the feed', () => {
    expect(feedVerdicts(report())).toEqual([]);
  });

  it('judges the scaling company’s feed, a million entries in, on its own, named by its depth', () => {
    const r = report((x) => {
      if (!('small' in x.scaling)) return;
      x.scaling.large.push(
        { ...m('changes_first_page', 200, 50), title: 'GET /v1/changes?limit=100 (from the beginning)' },
        { ...m('changes_deep_page', 200, 61), title: 'GET /v1/changes?limit=100 at a cursor 999,800 entries deep' },
      );
    });
    const feed = evaluateTargets(r).filter((t) => t.target.startsWith('change feed'));
    expect(feed.map((t) => [t.target, t.met])).toEqual([
      ['change feed from the beginning (1,000,000 meetings): ≥ 20,000 entries/s (pages of 100)', true],
      ['change feed 999,800 entries in (1,000,000 meetings): ≥ 20,000 entries/s (pages of 100)', true],
      ['change feed flat (1,000,000 meetings): p50 999,800 entries in ≤ 1.2× first page p50', false],
    ]);
  });
});

describe('bench targets: what the change feed costs and how soon it shows a commit', () => {
  const withFeed = (ratio: number, p99: number, missing = 0, storage = 1) =>
    report((r) => {
      r.feed = {
        trigger_overhead: { meetings: 1_000_000, with_seconds: [125 * ratio], without_seconds: [125], ratio },
        latency: { rate: 100, seconds: 10, samples: 1000 - missing, missing, p50_ms: 100, p99_ms: p99, max_ms: p99 },
        storage: { entries_before: 300, entries_after: 110 * storage, objects: 100, ratio: 1.1 * storage, compact_seconds: 1 },
      };
    });
  const verdicts = (r: Omit<BenchReport, 'targets'>) =>
    evaluateTargets(r)
      .filter((t) =>
        ['seed:volume with the change triggers', 'change feed: a commit', 'change-log rows'].some((p) => t.target.startsWith(p)),
      )
      .map((t) => t.met);

  it('meets all three at their bounds', () => {
    expect(verdicts(withFeed(1.25, 999))).toEqual([true, true, true]);
  });

  it('misses each one alone, and misses the latency when a commit never showed', () => {
    expect(verdicts(withFeed(1.26, 999))).toEqual([false, true, true]);
    expect(verdicts(withFeed(1.25, 999, 0, 1.01))).toEqual([true, false, true]);
    expect(verdicts(withFeed(1.25, 1000))).toEqual([true, true, false]);
    expect(verdicts(withFeed(1.25, 10, 1))).toEqual([true, true, false]);
  });
});

describe('bench targets: webhooks', () => {
  const lat = (p50: number, p99: number, missing = 0) => ({
    rate: 100,
    seconds: 20,
    samples: 2000 - missing,
    missing,
    p50_ms: p50,
    p99_ms: p99,
    max_ms: p99,
  });
  const withWebhooks = (
    o: { p50?: number; p99?: number; perSecond?: number; delivered?: number; slowP99?: number; missing?: number } = {},
  ) =>
    report((r) => {
      r.webhooks = {
        latency: lat(o.p50 ?? 999, o.p99 ?? 2999, o.missing),
        beside_slow: { ...lat(500, o.slowP99 ?? 2999), slow_answered: 40, failing_attempts: 100 },
        throughput: { changes: 10_000, endpoints: 3, deliveries: o.delivered ?? 30_000, seconds: 100, per_second: o.perSecond ?? 300 },
      };
    });
  const verdicts = (r: Omit<BenchReport, 'targets'>) =>
    evaluateTargets(r)
      .filter((t) => t.target.startsWith('webhooks'))
      .map((t) => t.met);

  it('meets all three at their bounds', () => {
    expect(verdicts(withWebhooks())).toEqual([true, true, true]);
  });

  it('misses each alone: latency, a lost event, throughput, an undelivered backlog, the fast receiver slowed', () => {
    expect(verdicts(withWebhooks({ p50: 1000 }))).toEqual([false, true, true]);
    expect(verdicts(withWebhooks({ p99: 3000 }))).toEqual([false, true, true]);
    expect(verdicts(withWebhooks({ missing: 1 }))).toEqual([false, true, true]);
    expect(verdicts(withWebhooks({ perSecond: 299 }))).toEqual([true, false, true]);
    expect(verdicts(withWebhooks({ delivered: 29_999 }))).toEqual([true, false, true]);
    expect(verdicts(withWebhooks({ slowP99: 3000 }))).toEqual([true, true, false]);
  });

  it('adds none to a run that skipped them', () => {
    expect(verdicts(report((r) => (r.webhooks = { skipped: '--webhook-seconds 0' })))).toEqual([]);
  });
});

describe('bench targets: bulk', () => {
  const rate = (records_per_second: number, mb_per_second: number) => ({
    requests: 1,
    records: records_per_second * 10,
    bytes: mb_per_second * 10 * 1024 * 1024,
    seconds: 10,
    records_per_second,
    mb_per_second,
  });
  type Knobs = {
    exported?: number;
    walk?: number;
    parts?: number;
    emails?: number;
    withPage?: number;
    records?: number;
    growth?: number;
    slow?: number;
    requests?: number;
  };
  const withBulk = (o: Knobs = {}) =>
    report((r) => {
      r.bulk = {
        volume: { meetings: 100, calls: 100, emails: 10, chats: 10, emailMessages: 10, chatMessages: 20 },
        meetings: { walk: rate(o.walk ?? 10_000, 5), export: rate(o.exported ?? 30_000, 15), rounds: 2 },
        with_parts: { recordings: rate(10_000, o.parts ?? 30), emails: rate(5_000, o.emails ?? 30), chats: rate(5_000, 10) },
        include_page: { without: m('meetings_page', 200, 10), with: m('meetings_page_include', o.withPage ?? 100, 20) },
        memory: {
          idle_mb: 200,
          export: {
            company: 'scaling',
            records: o.records ?? 1_000_000,
            peak_mb: 200 + (o.growth ?? 64),
            growth_mb: o.growth ?? 64,
            seconds: 50,
          },
          slow_reader: {
            bytes_per_second: 1024 * 1024,
            seconds: 30,
            bytes: 30 * 1024 * 1024,
            peak_mb: 200 + (o.slow ?? 64),
            growth_mb: o.slow ?? 64,
          },
        },
        sync: {
          copy: { requests: 2, seconds: 60, objects: 1_000_000, exported: 250_000 },
          catch_up: { requests: o.requests ?? 28, seconds: 2, entries: 1000, pages: 10, activity: {} },
          per_record_requests: 1_000_000,
        },
      };
    });
  const verdicts = (r: Omit<BenchReport, 'targets'>) =>
    evaluateTargets(r)
      .filter((t) => /export|include=|sync\.mjs/.test(t.target))
      .map((t) => t.met);

  it('meets all eight at their bounds', () => {
    expect(verdicts(withBulk())).toEqual([true, true, true, true, true, true, true, true]);
  });

  it('misses each alone', () => {
    expect(verdicts(withBulk({ exported: 19_999, walk: 6_000 }))).toEqual([false, true, true, true, true, true, true, true]);
    expect(verdicts(withBulk({ walk: 10_001 }))).toEqual([true, false, true, true, true, true, true, true]);
    expect(verdicts(withBulk({ parts: 29.9 }))).toEqual([true, true, false, true, true, true, true, true]);
    expect(verdicts(withBulk({ emails: 29.9 }))).toEqual([true, true, true, false, true, true, true, true]);
    expect(verdicts(withBulk({ withPage: 99 }))).toEqual([true, true, true, true, false, true, true, true]);
    expect(verdicts(withBulk({ growth: 65 }))).toEqual([true, true, true, true, true, false, true, true]);
    expect(verdicts(withBulk({ records: 999_999 }))).toEqual([true, true, true, true, true, false, true, true]);
    expect(verdicts(withBulk({ slow: 65 }))).toEqual([true, true, true, true, true, true, false, true]);
    expect(verdicts(withBulk({ requests: 29 }))).toEqual([true, true, true, true, true, true, true, false]);
  });

  it('adds none to a run that skipped the pass, and renders the pass', () => {
    expect(verdicts(report((r) => (r.bulk = { skipped: '--skip-bulk' })))).toEqual([]);
    const r = withBulk();
    expect(renderMarkdown({ ...r, targets: evaluateTargets(r) })).toContain('### Bulk');
  });
});
