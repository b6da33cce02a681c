/**
 * `npm run bench:replicas [-- --meetings 20000 --seconds 10 --rounds 4 --connections 8 --activity-seconds 60]`:
 * what a read costs on a hot standby against the primary, and how far the standby falls behind
 * under the write load of `seed:activity`. A dedicated embedded primary and its hot standby
 * (test/support/standby.ts: an online copy, streaming through a slot), a company of `meetings`
 * meetings, and the production build twice on the same primary: one reading there, one with
 * DATABASE_REPLICA_URLS naming the standby. The same requests (a meeting by a random id, a list
 * page) go to each in alternating rounds, side by side; then `seed:activity` writes for
 * `activity-seconds` while the standby's replay lag is sampled every 100 ms (WalTimeline, as the
 * service measures it) and the standby service keeps serving the detail route. One standby
 * beside the primary on two cores cannot show reads scaling out: what this measures is what a
 * standby costs a read, and the lag. Writes bench/results/replicas-<date>.json.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseUrls } from '../src/config/database-urls';
import { freePort } from '../src/database/embedded-postgres';
import { lsnOf, WalTimeline } from '../src/database/wal-positions';
import { startReplicatedPair } from '../test/support/standby';
import { cli, BenchDatabase } from './database';
import { alternate, measure, percentiles, round } from './load';
import { integerFlags } from './options';
import { writeResult } from './report';
import { PRODUCTION_ENTRY, serviceEnv, ServiceProcess } from './service';

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function main(): Promise<void> {
  const o = integerFlags(process.argv.slice(2), { meetings: 20_000, seconds: 10, rounds: 4, connections: 8, 'activity-seconds': 60 });
  const tmp = await mkdtemp(join(tmpdir(), 'conversation-read-api-bench-replicas-'));
  log('starting a primary and its hot standby');
  const pair = await startReplicatedPair('bench-replicas');
  const services: ServiceProcess[] = [];
  const primary = new Client({ connectionString: pair.primary.ownerUrl });
  const standby = new Client({ connectionString: pair.standby.superUrl });
  try {
    await Promise.all([primary.connect(), standby.connect()]);
    const db = { urls: new DatabaseUrls(pair.primary.apiUrl, pair.primary.ownerUrl, pair.primary.apiUrl) } as BenchDatabase;
    const env = serviceEnv(db, tmp);
    const { id: companyId } = await cli<{ id: string }>(env, ['company:create', '--name', 'Replicas bench']);
    log(`seeding ${o.meetings} meetings`);
    await cli(env, ['seed:volume', '--company', companyId, '--meetings', String(o.meetings)], { progress: true });
    const client = await cli<{ client_id: string; client_secret: string }>(env, [
      'client:create',
      '--company',
      companyId,
      '--name',
      'bench',
      '--scopes',
      'meetings.read calls.read emails.read chat.read',
    ]);
    await primary.query('VACUUM (ANALYZE)');
    await primary.query('CHECKPOINT').catch(() => undefined);
    await pair.standby.caughtUp(120_000);
    const { rows: ids } = await primary.query<{ public_id: string }>(`SELECT public_id FROM recordings WHERE kind = 'meeting'`);

    const onPrimary = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'primary.log'));
    services.push(onPrimary);
    const onStandby = await ServiceProcess.start(
      PRODUCTION_ENTRY,
      await freePort(),
      { ...env, DATABASE_REPLICA_URLS: pair.standby.apiUrl },
      join(tmp, 'standby.log'),
    );
    services.push(onStandby);
    const token = async (base: string) => {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
      });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    // The standby service reads there once its first lag check found it caught up: wait for the gauge.
    const serving = async () => ((await (await fetch(onStandby.metricsUrl!)).text()).match(/db_replica_serving\{[^}]*\} 1/) ? true : false);
    for (let i = 0; i < 100 && !(await serving()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!(await serving())) throw new Error('the standby service never read from its standby');

    const headersOf = async (base: string) => ({ Authorization: `Bearer ${await token(base)}` });
    const scenarios = async (base: string) => {
      const headers = await headersOf(base);
      return [
        {
          name: 'detail',
          title: 'GET /v1/meetings/{id}',
          path: () => `/v1/meetings/${ids[Math.floor(Math.random() * ids.length)].public_id}`,
          headers,
        },
        { name: 'page', title: 'GET /v1/meetings?limit=100', path: '/v1/meetings?limit=100', headers },
      ];
    };
    const [p, s] = [await scenarios(onPrimary.baseUrl), await scenarios(onStandby.baseUrl)];
    const settings = (service: ServiceProcess) => ({
      baseUrl: service.baseUrl,
      connections: o.connections,
      duration: o.seconds,
      warmup: 2,
      rss: service.rss,
    });
    const reads: Record<string, unknown> = {};
    for (const [i, scenario] of p.entries()) {
      log(`${scenario.title}: ${o.rounds} alternating rounds of ${o.seconds} s`);
      const [a, b] = await alternate(
        [
          { scenario, settings: settings(onPrimary) },
          { scenario: s[i], settings: settings(onStandby) },
        ],
        o.rounds,
      );
      reads[scenario.name] = {
        primary: a,
        standby: b,
        standby_over_primary_rps: round(b.requests_per_second / a.requests_per_second, 2),
        standby_over_primary_p50: round(b.latency_ms.p50 / a.latency_ms.p50, 2),
        standby_over_primary_p99: round(b.latency_ms.p99 / a.latency_ms.p99, 2),
      };
      log(
        `  primary ${a.requests_per_second} req/s p99 ${a.latency_ms.p99} ms; standby ${b.requests_per_second} req/s p99 ${b.latency_ms.p99} ms`,
      );
    }

    log(`seed:activity for ${o['activity-seconds']} s, the standby's lag sampled every 100 ms`);
    const timeline = new WalTimeline(600_000);
    const lags: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [{ rows: a }, { rows: b }] = await Promise.all([
          primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'),
          standby.query<{ lsn: string }>('SELECT pg_last_wal_replay_lsn()::text AS lsn'),
        ]);
        const now = Date.now();
        timeline.record(lsnOf(a[0].lsn), now);
        lags.push(timeline.lagSeconds(lsnOf(b[0].lsn), now)! * 1000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const started = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const activity = cli(env, ['seed:activity', '--company', companyId, '--minutes', String(o['activity-seconds'] / 60), '--rate', '1200']);
    const underWrites = await measure(s[0], { ...settings(onStandby), duration: Math.max(5, o['activity-seconds'] - 5) });
    await activity;
    const ended = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    sampling = false;
    await sampler;
    const walMb = Number(lsnOf(ended.rows[0].lsn) - lsnOf(started.rows[0].lsn)) / 1024 / 1024;
    const report = {
      date: new Date().toISOString(),
      database: `PostgreSQL ${pair.primary.port} primary and a hot standby (embedded, fsync off, one machine)`,
      meetings: o.meetings,
      connections: o.connections,
      seconds: o.seconds,
      rounds: o.rounds,
      reads,
      under_writes: {
        seconds: o['activity-seconds'],
        wal_mb: round(walMb, 1),
        replay_lag_ms: { ...percentiles(lags), samples: lags.length },
        standby_detail: underWrites,
      },
    };
    const out = await writeResult('replicas', report);
    log(
      `replay lag under seed:activity: p50 ${report.under_writes.replay_lag_ms.p50} ms, p99 ${report.under_writes.replay_lag_ms.p99} ms, max ${report.under_writes.replay_lag_ms.max} ms`,
    );
    log(`wrote ${out}`);
  } finally {
    for (const service of services) await service.stop();
    await primary.end().catch(() => undefined);
    await standby.end().catch(() => undefined);
    await pair.stop();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
