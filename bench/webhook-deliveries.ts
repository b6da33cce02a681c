/**
 * `npm run bench:webhook-deliveries [-- --deliveries 1000000 --every 10000 --runs 200]`: what a
 * page of `GET /v1/webhook-endpoints/{id}/deliveries` costs PostgreSQL on an endpoint with a long
 * history, `deliveries` records of which one in `every` failed (the rest delivered), read by the
 * service's own statements (deliveriesPage) as the API role in its tenant transaction, under the
 * deliveries' row-level security (through their endpoint), with a generic plan as the service's
 * prepared statements get. Side by side, in one run: the newest page, the newest page of failed
 * deliveries (the `state` filter of a rare state), both again from a cursor deep in the history,
 * and the newest page read by the schema owner (no policy; the CLI's path), and a page of the other
 * company's endpoint as this company's tenant (what the policy keeps out: no rows; the API answers
 * 404 before it reads one). `BENCH_EXPLAIN=1` prints the owner's plan of the newest page. Writes
 * bench/results/webhook-deliveries-<date>.json.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { mintId } from '../src/common/ids/public-id';
import { deliveriesPage } from '../src/webhooks/webhook-deliveries.repository';
import { BenchDatabase } from './database';
import { statementTimes } from './load';
import { integerFlags } from './options';
import { writeResult } from './report';

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const PAGE = 50;
/** Below every id: the first page. */
const FIRST = '9223372036854775807';

/** Milliseconds of `runs` executions of one page (after 20 to warm up), in a tenant transaction of `company` (null: no setting, the owner). */
async function timePage(client: Client, company: string | null, values: unknown[], runs: number, name: string) {
  const statement = { name, text: deliveriesPage(values.length > 2, PAGE + 1) };
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs + 20; i++) {
    await client.query('BEGIN');
    if (company) await client.query(`SELECT set_config('app.company_id', $1, true)`, [company]);
    const started = performance.now();
    const result = await client.query({ ...statement, values });
    if (i >= 20) times.push(performance.now() - started);
    rows = result.rows.length;
    await client.query('COMMIT');
  }
  return { rows, ...statementTimes(times, 3) };
}

async function main(): Promise<void> {
  const o = integerFlags(process.argv.slice(2), { deliveries: 1_000_000, every: 10_000, runs: 200 });
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-webhook-deliveries');
  const db = await BenchDatabase.open(dataDir, log);
  const api = new Client({ connectionString: db.urls.api, application_name: 'bench-webhook-deliveries' });
  await api.connect();
  try {
    for (const client of [api, db.owner]) await client.query('SET plan_cache_mode = force_generic_plan');
    const companies: string[] = [];
    const endpoints: string[] = [];
    // Two companies, one endpoint each with the same history: the policy has another company's rows to keep out.
    for (const name of ['Deliveries', 'Neighbour']) {
      const { rows: c } = await db.owner.query<{ id: string }>(
        `INSERT INTO companies (public_id, name) VALUES ($1, $2) RETURNING id::text AS id`,
        [mintId('company'), name],
      );
      const { rows: e } = await db.owner.query<{ id: string }>(
        `INSERT INTO webhook_endpoints (public_id, company_id, url, secret, position_epoch, position_xid)
         VALUES ($1, $2, 'https://example.com/hook', 'sealed', 1, '1') RETURNING id::text AS id`,
        [mintId('webhookEndpoint'), c[0].id],
      );
      companies.push(c[0].id);
      endpoints.push(e[0].id);
    }
    log(`writing ${o.deliveries} deliveries to each of 2 endpoints (one in ${o.every} failed)`);
    const started = performance.now();
    for (const endpoint of endpoints) {
      for (let from = 1; from <= o.deliveries; from += 500_000) {
        await db.owner.query(
          `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, status, attempts, last_status, created_at, last_attempt_at, delivered_at)
           SELECT $1, 'chg_' || n, 'meeting.updated', now(), '{"type":"meeting.updated"}',
             CASE WHEN n % $2 = 0 THEN 'failed' ELSE 'delivered' END, 1, CASE WHEN n % $2 = 0 THEN 503 ELSE 204 END, now(), now(),
             CASE WHEN n % $2 = 0 THEN NULL ELSE now() END
           FROM generate_series($3::bigint, least($3::bigint + 499999, $4)) n`,
          [endpoint, o.every, from, o.deliveries],
        );
      }
    }
    const writeSeconds = Math.round((performance.now() - started) / 100) / 10;
    log(`written in ${writeSeconds} s`);
    await db.vacuumAnalyze();
    const { rows: deepRow } = await db.owner.query<{ id: string }>(
      `SELECT id::text AS id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id OFFSET $2 LIMIT 1`,
      [endpoints[0], Math.floor(o.deliveries * 0.2)],
    );
    const deep = deepRow[0].id;
    const [company, endpoint] = [companies[0], endpoints[0]];
    if (process.env.BENCH_EXPLAIN) {
      await db.owner.query(`PREPARE p(bigint, bigint) AS ${deliveriesPage(false, PAGE + 1)}`);
      const { rows: plan } = await db.owner.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE p(${endpoints[0]}, 9223372036854775807)`);
      log(plan.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
    }
    log('pages');
    const pages = {
      newest: await timePage(api, company, [endpoint, FIRST], o.runs, 'newest'),
      newest_failed: await timePage(api, company, [endpoint, FIRST, 'failed'], o.runs, 'newest_failed'),
      deep: await timePage(api, company, [endpoint, deep], o.runs, 'deep'),
      deep_failed: await timePage(api, company, [endpoint, deep, 'failed'], o.runs, 'deep_failed'),
      newest_as_owner: await timePage(db.owner, null, [endpoint, FIRST], o.runs, 'newest_owner'),
      other_company_endpoint: await timePage(api, company, [endpoints[1], FIRST], o.runs, 'other'),
    };
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const report = {
      date: new Date().toISOString(),
      database: db.description,
      deliveries_per_endpoint: o.deliveries,
      failed_share: 1 / o.every,
      page: PAGE,
      write_seconds: writeSeconds,
      pages,
      ratios: {
        failed_to_newest: ratio(pages.newest_failed.mean_ms, pages.newest.mean_ms),
        deep_failed_to_deep: ratio(pages.deep_failed.mean_ms, pages.deep.mean_ms),
        policy_cost: ratio(pages.newest.mean_ms, pages.newest_as_owner.mean_ms),
      },
    };
    const out = await writeResult('webhook-deliveries', report);
    log(`wrote ${out}`);
  } finally {
    await api.end();
    await db.close(false, dataDir);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
