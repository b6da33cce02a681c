import { Client } from 'pg';
import { prepareAuditStore } from '../../src/audit/audit-store';
import { AUDIT_READ_SQL } from '../../src/audit/audit-read-sql';
import { AUDIT_SCHEMA, monthStart } from '../../src/audit/audit-schema';
import { roleOf } from '../../src/database/schema-privileges';
import { assertTestDatabase } from '../support/test-app';

/**
 * `GET /v1/audit-events` at scale: a trail of a million rows over five monthly partitions (a
 * hundred companies, twenty clients each, 200,000 records read, one of them read on every
 * thousandth row) in a database prepared as `npm run migration:run` prepares a separate audit
 * database. Each first page the route can ask for (unfiltered, by client, by resource, the hot
 * resource, a second page) is planned with the index that serves it and reads a number of rows
 * bounded by the page, not by the trail: the plans are read with auto_explain as the function
 * runs them, and the timings (as the API role) are printed.
 *
 * The bound is what is proven, and a million rows prove it: the target company holds 10,000 of
 * them and the hot record 1,000, so a plan that reads a company's or a record's rows rather than a
 * page's (the cross-month merge and the bitmap-and-sort this spec caught) reads five to fifty
 * times the bound and fails. The same spec at 10 million rows (`AUDIT_SCALE_ROWS=10000000`, about
 * five minutes) is `npm run bench:audit`, whose timings docs/BENCHMARKS.md records.
 */
const ROWS = Number(process.env.AUDIT_SCALE_ROWS ?? 1_000_000);
const COMPANIES = 100;
const CLIENTS = 20;
const RECORDS = 200_000;
const CHUNK = 1_000_000;
const PAGE = 50;
/** The route's default bound on rows examined (AUDIT_SCAN_ROWS): a page that fills first reads only the page. */
const SCAN_ROWS = 10_000;

const id = (prefix: string, n: string) => `'${prefix}_' || lpad((${n})::text, 22, '0')`;
const COMPANY = id('cmp', 'i % ' + COMPANIES);
const TARGET = `cmp_${'0'.padStart(22, '0')}`;
const HOT = `mtg_${'hot'.padStart(22, '0')}`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows a node produced or filtered out, over every loop. */
const touched = (n: PlanNode) => (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'];
const summary = (n: PlanNode) =>
  `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''} rows ${n['Actual Rows']} x ${n['Actual Loops']}`;

/** 'bounded' when the plan's scans read at most a few pages' worth of rows; else the plan, to see why. */
const bounded = (plan: PlanNode) =>
  rowsRead(plan) <= PAGE * 4 ? 'bounded' : `${rowsRead(plan)} rows read:\n${nodes(plan).map(summary).join('\n')}`;

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
/** Rows the plan's scans produced from tables and indexes, over every loop. */
const rowsRead = (plan: PlanNode) =>
  nodes(plan)
    .filter((n) => /Scan/.test(n['Node Type']))
    .reduce((sum, n) => sum + touched(n), 0);

describe(`the audit trail at ${ROWS.toLocaleString('en')} rows`, () => {
  const superUrl = process.env.TEST_SUPER_DATABASE_URL!;
  const ownerUrl = assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL);
  const apiUrl = assertTestDatabase(process.env.TEST_DATABASE_URL);
  const database = `audit_scale_test_${process.pid}`;
  const at = (url: string) => Object.assign(new URL(url), { pathname: `/${database}` }).toString();
  const now = new Date();
  const from = monthStart(now, -4);
  const timings: string[] = [];

  beforeAll(async () => {
    const su = new Client({ connectionString: superUrl });
    await su.connect();
    await su.query(`CREATE DATABASE ${database} OWNER "${roleOf(ownerUrl)}"`);
    await su.end();
    await prepareAuditStore(at(ownerUrl), roleOf(apiUrl));
    const owner = new Client({ connectionString: at(ownerUrl) });
    await owner.connect();
    try {
      await owner.query('SET synchronous_commit = off');
      await owner.query(`SET maintenance_work_mem = '256MB'`);
      const started = Date.now();
      // Loaded as a restore would: the trail's indexes and its resource trigger set aside, the rows
      // written, the resource index filled from them, then every index built again as the schema
      // defines it (AUDIT_SCHEMA, AUDIT_READ_SQL) and the trigger enabled: the state a trail of this
      // size has, reached in a fraction of the time row-by-row maintenance takes.
      await owner.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_index_resources');
      await owner.query('ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey');
      for (const index of [
        'audit_events_company_time_idx',
        'audit_events_request_idx',
        'audit_events_company_client_idx',
        'audit_event_resources_lookup_idx',
      ]) {
        await owner.query(`DROP INDEX ${index}`);
      }
      for (let first = 1; first <= ROWS; first += CHUNK) {
        const last = Math.min(ROWS, first + CHUNK - 1);
        // Spread evenly from four months ago to now; every 1000th row names the hot record too (the target
        // company's: one in ten of its rows); every 50th is a 404 naming none.
        await owner.query(
          `INSERT INTO audit_events (occurred_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids)
           SELECT $1::timestamptz + (($2::timestamptz - $1::timestamptz) * i / $3::bigint),
             'req_' || lpad(i::text, 22, '0'), ${COMPANY}, ${id('cli', `(i % ${COMPANIES}) * 100 + (i / ${COMPANIES}) % ${CLIENTS}`)},
             '203.0.113.7', 'GET', 'GET /v1/meetings/{meeting_id}', '{}', '{}', CASE WHEN i % 50 = 25 THEN 404 ELSE 200 END,
             CASE WHEN i % 50 = 25 THEN '[]'::jsonb
                  WHEN i % 1000 = 0 THEN jsonb_build_array(${id('mtg', `(i * 7919) % ${RECORDS}`)}, '${HOT}')
                  ELSE jsonb_build_array(${id('mtg', `(i * 7919) % ${RECORDS}`)}) END
           FROM generate_series($4::bigint, $5::bigint) AS i`,
          [from.toISOString(), now.toISOString(), ROWS, first, last],
        );
      }
      await owner.query(
        `INSERT INTO audit_event_resources (company, resource_id, occurred_at, event_id)
         SELECT e.company, r.id, e.occurred_at, e.id FROM audit_events e CROSS JOIN LATERAL jsonb_array_elements_text(e.resource_ids) AS r(id)`,
      );
      await owner.query('ALTER TABLE audit_events ADD PRIMARY KEY (occurred_at, id)');
      for (const sql of [...AUDIT_SCHEMA, ...AUDIT_READ_SQL].filter((sql) => sql.startsWith('CREATE INDEX'))) await owner.query(sql);
      await owner.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_index_resources');
      await owner.query('ANALYZE audit_events');
      await owner.query('ANALYZE audit_event_resources');
      const [{ events, resources }] = (
        await owner.query(
          'SELECT (SELECT count(*) FROM audit_events)::int AS events, (SELECT count(*) FROM audit_event_resources)::int AS resources',
        )
      ).rows;
      expect(events).toBe(ROWS);
      timings.push(`loaded ${events} events (${resources} resource index rows) in ${Math.round((Date.now() - started) / 1000)} s`);
    } finally {
      await owner.end();
    }
  }, 3_600_000);

  afterAll(async () => {
    const su = new Client({ connectionString: superUrl });
    await su.connect();
    await su.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await su.end();
    process.stdout.write(`audit trail at scale (docs/BENCHMARKS.md):\n${timings.join('\n')}\n`);
  });

  /** The plans of the statements app_audit_events runs for these arguments (auto_explain, as the function runs them). */
  async function planOf(args: unknown[]): Promise<PlanNode> {
    const su = new Client({ connectionString: at(superUrl) });
    await su.connect();
    const notices: string[] = [];
    su.on('notice', (notice) => notices.push(notice.message ?? ''));
    try {
      await su.query(`LOAD 'auto_explain'`);
      for (const setting of [
        'auto_explain.log_min_duration = 0',
        'auto_explain.log_analyze = on',
        'auto_explain.log_buffers = on',
        'auto_explain.log_nested_statements = on',
        `auto_explain.log_format = 'json'`,
        `auto_explain.log_level = 'notice'`,
        `client_min_messages = 'notice'`,
      ]) {
        await su.query(`SET ${setting}`);
      }
      await su.query('BEGIN');
      await su.query(`SELECT set_config('app.audit_company', $1, true)`, [TARGET]);
      await su.query(`SELECT * FROM app_audit_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, args);
      await su.query('COMMIT');
    } finally {
      await su.end();
    }
    // Every statement the function ran (its top-level call excepted), under one root: its scans, summed.
    const nested = notices
      .map((n) => JSON.parse(n.slice(n.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode })
      .filter((n) => !/^\s*SELECT \* FROM app_audit_events/.test(n['Query Text']) && /audit_event/.test(n['Query Text']));
    if (!nested.length) throw new Error(`no plan of the function's statements among ${notices.length} notices`);
    return { 'Node Type': 'Function', 'Actual Rows': 0, 'Actual Loops': 1, Plans: nested.map((n) => n.Plan) };
  }

  /** The median time, as the API role, of the function's first page for these arguments. */
  async function timed(label: string, args: unknown[]): Promise<Array<Record<string, unknown>>> {
    const api = new Client({ connectionString: at(apiUrl) });
    await api.connect();
    try {
      const times: number[] = [];
      let rows: Array<Record<string, unknown>> = [];
      for (let run = 0; run < 21; run++) {
        const started = process.hrtime.bigint();
        await api.query('BEGIN READ ONLY');
        await api.query(`SELECT set_config('app.audit_company', $1, true)`, [TARGET]);
        rows = (
          await api.query(
            `SELECT e.*, e.occurred_at::text AS position FROM app_audit_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) e`,
            args,
          )
        ).rows;
        await api.query('COMMIT');
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      times.sort((x, y) => x - y);
      timings.push(`${label}: ${rows.length} rows, median ${times[10].toFixed(2)} ms, p95 ${times[19].toFixed(2)} ms (21 runs)`);
      return rows;
    } finally {
      await api.end();
    }
  }

  const args = (f: { client?: string; resource?: string; status?: [number, number]; at?: [string, string] } = {}) => [
    f.client ?? null,
    null,
    f.status?.[0] ?? null,
    f.status?.[1] ?? null,
    f.resource ?? null,
    null,
    null,
    f.at?.[0] ?? null,
    f.at?.[1] ?? null,
    PAGE + 1,
    SCAN_ROWS,
  ];

  const shapes: Array<[string, ReturnType<typeof args>, RegExp]> = [
    ['unfiltered', args(), /^audit_events_p\d{6}_company_occurred_at_id_idx$/],
    ['client_id', args({ client: `cli_${'7'.padStart(22, '0')}` }), /^audit_events_p\d{6}_company_client_occurred_at_id_idx$/],
    [
      `resource_id (read ${ROWS / 200_000} times)`,
      args({ resource: `mtg_${'191900'.padStart(22, '0')}` }),
      /^audit_event_resources_p\d{6}_company_resource_id_occurred_/,
    ],
    [
      `resource_id (read ${(ROWS / 1000).toLocaleString('en')} times)`,
      args({ resource: HOT }),
      /^audit_event_resources_p\d{6}_company_resource_id_occurred_/,
    ],
    [
      'resource_id and status 2xx',
      args({ resource: HOT, status: [200, 299] }),
      /^audit_event_resources_p\d{6}_company_resource_id_occurred_/,
    ],
  ];

  it.each(shapes)('plans the %s first page on its index, reading rows bounded by the page', async (label, shape, index) => {
    const plan = await planOf(shape);
    const all = nodes(plan);
    // No scan but an index's touches a row (the planner may scan an empty month's partition, which reads nothing).
    expect(all.filter((n) => /Seq Scan|Bitmap Heap Scan/.test(n['Node Type']) && touched(n) > 0).map(summary)).toEqual([]);
    expect(all.some((n) => index.test(n['Index Name'] ?? ''))).toBe(true);
    // A page of 51 reads at most a few pages' worth, however many rows the trail or the record holds.
    expect(bounded(plan)).toBe('bounded');
    const rows = await timed(label, shape);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('plans a later page (the cursor) the same way', async () => {
    const first = await timed('hot resource, first page', args({ resource: HOT }));
    expect(first).toHaveLength(PAGE + 1);
    const last = first[PAGE - 1] as { position: string; id: string };
    const position: [string, string] = [last.position, last.id];
    const plan = await planOf(args({ resource: HOT, at: position }));
    expect(bounded(plan)).toBe('bounded');
    const second = await timed('hot resource, second page', args({ resource: HOT, at: position }));
    expect(second[0]).toEqual(first[PAGE]);
  });
});
