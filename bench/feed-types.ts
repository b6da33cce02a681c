/**
 * `npm run bench:feed-types [-- --entries 5000000 --every 10000]`: what one page of the change
 * feed costs when it follows a sparse type. A company's log of `entries` entries, one in
 * `every` a meeting and the rest chat messages (0.01% by default), and the feed's own page
 * statement (the service's text, as the API role, in its read-only tenant transaction, with a
 * generic plan as the service's prepared statements get) timed side by side: a page of
 * meetings against a page of every type, from the beginning and from a position 80% deep, and
 * once more right after the bulk write, before the log was analyzed. Writes
 * bench/results/feed-types-<date>.json.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CHANGE_OBJECTS, ChangeObject } from '../src/changes/change.vocabulary';
import { FeedPosition, pageStatement } from '../src/changes/changes.repository';
import { mintId } from '../src/common/ids/public-id';
import { BenchDatabase } from './database';
import { statementTimes } from './load';
import { integerFlags } from './options';
import { writeResult } from './report';

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** Milliseconds of `runs` executions of one page (after 20 to warm up), as the API role reads it. */
async function timePage(api: Client, company: string, types: readonly ChangeObject[], after: FeedPosition, runs: number) {
  const statement = { name: `feed_page_${types.join('_')}`, text: pageStatement(101) };
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs + 20; i++) {
    await api.query('BEGIN READ ONLY');
    await api.query(`SELECT set_config('app.company_id', $1, true)`, [company]);
    const started = performance.now();
    const result = await api.query({ ...statement, values: [company, ...after, types] });
    if (i >= 20) times.push(performance.now() - started);
    rows = result.rows.filter((r) => r.public_id !== null).length;
    await api.query('COMMIT');
  }
  return { rows, ...statementTimes(times, 2) };
}

async function main(): Promise<void> {
  const o = integerFlags(process.argv.slice(2), { entries: 5_000_000, every: 10_000, runs: 200 });
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-feed-types');
  const db = await BenchDatabase.open(dataDir, log);
  const api = new Client({ connectionString: db.urls.api, application_name: 'bench-feed-types' });
  await api.connect();
  try {
    await api.query('SET plan_cache_mode = force_generic_plan');
    const { rows: made } = await db.owner.query<{ id: string }>(
      `INSERT INTO companies (public_id, name) VALUES ($1, 'Feed types') RETURNING id::text AS id`,
      [mintId('company')],
    );
    const company = made[0].id;
    const { rows: h } = await db.owner.query<{ live: number; horizon: string }>(
      `SELECT app_live_change_epoch() AS live, pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`,
    );
    const [live, horizon] = [h[0].live, Number(h[0].horizon)];
    // Entries below the horizon, spread over its transaction ids, in batches of a million.
    log(`writing ${o.entries} entries (a meeting every ${o.every}, chat messages otherwise)`);
    const started = performance.now();
    await db.owner.query('ALTER TABLE change_log SET (autovacuum_enabled = false)');
    for (let from = 1; from <= o.entries; from += 1_000_000) {
      await db.owner.query(
        `INSERT INTO change_log (company_id, epoch, xid, object, object_id, object_key, parent_id, action, changed)
         SELECT $1, $2, (3 + (n * ($3::bigint - 4)) / $4)::text::xid8,
           CASE WHEN n % $5 = 0 THEN 'meeting' ELSE 'chat_message' END, 'obj_' || n, n,
           CASE WHEN n % $5 = 0 THEN NULL ELSE 'wa_bench' END, 'created', '{}'
         FROM generate_series($6::bigint, least($6::bigint + 999999, $4)) n`,
        [company, live, horizon, o.entries, o.every, from],
      );
    }
    const writeSeconds = Math.round((performance.now() - started) / 100) / 10;
    log(`written in ${writeSeconds} s`);
    const { rows: deepRow } = await db.owner.query<{ epoch: string; xid: string; seq: string }>(
      `SELECT epoch::text, xid::text, seq::text FROM change_log WHERE company_id = $1 AND object_key = $2`,
      [company, Math.floor(o.entries * 0.8)],
    );
    const deep: FeedPosition = [deepRow[0].epoch, deepRow[0].xid, deepRow[0].seq];
    const beginning: FeedPosition = ['0', '0', '0'];
    const measure = async (runs: number) => {
      const pages = {
        all_from_beginning: await timePage(api, company, CHANGE_OBJECTS, beginning, runs),
        meeting_from_beginning: await timePage(api, company, ['meeting'], beginning, runs),
        all_deep: await timePage(api, company, CHANGE_OBJECTS, deep, runs),
        meeting_deep: await timePage(api, company, ['meeting'], deep, runs),
      };
      const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
      return {
        ...pages,
        ratio_from_beginning: ratio(pages.meeting_from_beginning.mean_ms, pages.all_from_beginning.mean_ms),
        ratio_deep: ratio(pages.meeting_deep.mean_ms, pages.all_deep.mean_ms),
      };
    };
    log('pages before the log is analyzed');
    const unanalyzed = await measure(Math.min(o.runs, 50));
    await db.owner.query('ALTER TABLE change_log RESET (autovacuum_enabled)');
    await db.vacuumAnalyze();
    log('pages after VACUUM (ANALYZE)');
    const analyzed = await measure(o.runs);
    const report = {
      date: new Date().toISOString(),
      database: db.description,
      entries: o.entries,
      sparse_share: 1 / o.every,
      write_seconds: writeSeconds,
      targets: { ratio_max: 2 },
      unanalyzed,
      analyzed,
    };
    const out = await writeResult('feed-types', report);
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
