/**
 * `npm run bench:queue-policies`: what pg-boss's own per-key mechanisms would give the webhook
 * worker, measured on a real PostgreSQL (#33: before keeping the job-owned batch lease and the
 * polled retries, see whether the library already has them).
 *
 * 1. Per-key policies: for each queue policy (standard, short, singleton, stately), how many jobs
 *    of one key (an endpoint) can be outstanding (waiting, retrying or running) at once, sending
 *    four batches while one runs. The worker needs exactly one.
 * 2. Expiry counts from a run's start, not from the job's creation: a job with a 1 s expiry left
 *    waiting 3 s is still waiting (so "how long a batch waited" can never decide that it is lost).
 * 3. A delayed job (`startAfter`, what a retry as a delayed task would be): how late after its
 *    time a worker fetching every 250 ms gets it.
 *
 * Writes bench/results/queue-policies-<date>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PgBoss from 'pg-boss';
import { BenchDatabase } from './database';
import { percentiles } from './load';

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const POLICIES = ['standard', 'short', 'singleton', 'stately'] as const;

async function main(): Promise<void> {
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-queue-policies');
  const db = await BenchDatabase.open(dataDir, log);
  const boss = new PgBoss({ connectionString: db.urls.owner, schema: 'bench_pgboss', supervise: true, schedule: false, maintenanceIntervalSeconds: 1 });
  boss.on('error', (error: Error) => log(`pg-boss: ${error.message}`));
  await boss.start();
  const report: Record<string, unknown> = { pg_boss: (await import('pg-boss/package.json')).version, date: new Date().toISOString() };
  try {
    // 1. Outstanding jobs per key under each policy.
    const perKey: Record<string, { accepted: number; outstanding_most: number; running_most: number }> = {};
    for (const policy of POLICIES) {
      const name = `policy_${policy}`;
      await boss.createQueue(name, { name, policy });
      const key = 'endpoint-1';
      let accepted = 0;
      if (await boss.send(name, { batch: 1 }, { singletonKey: key })) accepted++;
      await boss.fetch(name, { batchSize: 1 }); // the first batch runs
      for (let batch = 2; batch <= 5; batch++) if (await boss.send(name, { batch }, { singletonKey: key })) accepted++;
      await boss.fetch(name, { batchSize: 10 }); // a worker with free slots asks for more
      const { rows } = await db.owner.query<{ outstanding: number; running: number }>(
        `SELECT count(*) FILTER (WHERE state < 'completed')::int AS outstanding, count(*) FILTER (WHERE state = 'active')::int AS running
         FROM bench_pgboss.job WHERE name = $1 AND singleton_key = $2`,
        [name, key],
      );
      perKey[policy] = { accepted, outstanding_most: rows[0].outstanding, running_most: rows[0].running };
      log(`${policy}: ${accepted} of 5 batches accepted, ${rows[0].outstanding} outstanding, ${rows[0].running} running at once`);
    }
    report.per_key = perKey;

    // 2. Expiry is measured from a run's start.
    await boss.createQueue('expiry', { name: 'expiry' });
    const waiting = await boss.send('expiry', {}, { expireInSeconds: 1 });
    await sleep(3000);
    const waited = await boss.getJobById('expiry', waiting!);
    report.expiry = { expire_seconds: 1, waited_seconds: 3, state_after: waited?.state };
    log(`a job with a 1 s expiry, waiting 3 s: ${waited?.state}`);

    // 3. Delayed jobs: lateness past their time with a fetch every 250 ms.
    await boss.createQueue('delayed', { name: 'delayed' });
    const due = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const at = Date.now() + 1000 + i * 100;
      const id = await boss.send('delayed', {}, { startAfter: new Date(at) });
      due.set(id!, at);
    }
    const late: number[] = [];
    const deadline = Date.now() + 20_000;
    while (late.length < due.size && Date.now() < deadline) {
      for (const job of await boss.fetch('delayed', { batchSize: 10 })) late.push(Date.now() - due.get(job.id)!);
      await sleep(250);
    }
    const p = percentiles(late);
    report.delayed = { jobs: due.size, fetched: late.length, fetch_every_ms: 250, late_p50_ms: Math.round(p.p50), late_p99_ms: Math.round(p.p99) };
    log(`delayed jobs: late by p50 ${Math.round(p.p50)} ms, p99 ${Math.round(p.p99)} ms`);
  } finally {
    await boss.stop({ graceful: false, wait: true, timeout: 1000 });
    await db.close(false, dataDir);
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/queue-policies-${new Date().toISOString().slice(0, 10)}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${file}`);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
