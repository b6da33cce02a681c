import { Client } from 'pg';
import type { VolumeResult } from '../src/seeding/volume-seeder';
import { BenchDatabase, cli } from './database';
import { createTenant, Tenant } from './dataset';
import { percentiles } from './load';

/** What the change feed costs writers, and how soon a reader sees a commit. */
export interface FeedReport {
  /** `seed:volume` of `meetings` meetings with the change triggers and as many without them, in alternating rounds; the ratio of the sums. */
  trigger_overhead?: { meetings: number; with_seconds: number[]; without_seconds: number[]; ratio: number };
  /** From a writer's commit to a poller's first sight of the entry, at `rate` commits a second. */
  latency?: { rate: number; seconds: number; samples: number; missing: number; p50_ms: number; p99_ms: number; max_ms: number };
  /** Change-log rows against live objects once everything written is compacted (as if older than CHANGES_COMPACT_AFTER). */
  storage?: { entries_before: number; entries_after: number; objects: number; ratio: number; compact_seconds: number };
}

/**
 * Compacts the whole log as if every entry were older than CHANGES_COMPACT_AFTER (`changes:compact
 * --before now`), then counts its rows against the live objects (records, conversations, messages).
 */
export async function storageAfterCompaction(db: BenchDatabase, env: NodeJS.ProcessEnv): Promise<NonNullable<FeedReport['storage']>> {
  const count = async (sql: string) => Number((await db.owner.query<{ n: string }>(sql)).rows[0].n);
  const entriesBefore = await count('SELECT count(*) AS n FROM change_log');
  const started = performance.now();
  await cli(env, ['changes:compact', '--before', new Date().toISOString()]);
  const compactSeconds = Math.round((performance.now() - started) / 100) / 10;
  const entriesAfter = await count('SELECT count(*) AS n FROM change_log');
  const objects = await count(`SELECT (SELECT count(*) FROM recordings) + (SELECT count(*) FROM email_conversations)
    + (SELECT count(*) FROM email_messages) + (SELECT count(*) FROM chat_conversations) + (SELECT count(*) FROM chat_messages) AS n`);
  return {
    entries_before: entriesBefore,
    entries_after: entriesAfter,
    objects,
    ratio: Math.round((entriesAfter / objects) * 1000) / 1000,
    compact_seconds: compactSeconds,
  };
}

/** The change triggers of every captured table (the others, such as those deriving a conversation's activity, stay). */
export async function changeTriggers(db: BenchDatabase): Promise<Array<{ table: string; name: string }>> {
  const { rows } = await db.owner.query<{ table: string; name: string }>(
    `SELECT c.relname AS table, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND t.tgname LIKE '%\\_changes\\_%'`,
  );
  return rows;
}

/**
 * Seeds `meetings` meetings (with every relation) through `seed:volume` with the change triggers
 * and as many without them, in `rounds` rounds of `meetings / rounds` each side, alternating
 * which side goes first (on, off; off, on; …), each into a fresh company and after a
 * `CHECKPOINT`. Interleaved that way, what drifts during the pass (the database growing,
 * autovacuum, checkpoints, the machine's other load) falls on both sides alike; the ratio of
 * the sums is the triggers' write overhead. The triggers are disabled for the whole database
 * while a round without them runs (nothing else writes then) and enabled again whatever happens.
 */
export async function triggerOverhead(
  db: BenchDatabase,
  env: NodeJS.ProcessEnv,
  meetings: number,
  rounds: number,
  log: (line: string) => void,
) {
  const triggers = await changeTriggers(db);
  const set = async (enabled: boolean) => {
    for (const t of triggers) await db.owner.query(`ALTER TABLE ${t.table} ${enabled ? 'ENABLE ALWAYS' : 'DISABLE'} TRIGGER ${t.name}`);
  };
  const perRound = Math.ceil(meetings / rounds);
  const withSeconds: number[] = [];
  const withoutSeconds: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const withTriggers of round % 2 ? [false, true] : [true, false]) {
        await set(withTriggers);
        const tenant = await createTenant(db, env, `Triggers ${withTriggers ? 'on' : 'off'} ${round + 1}`);
        await db.checkpoint();
        const result = await cli<VolumeResult>(env, ['seed:volume', '--company', tenant.companyId, '--meetings', String(perRound)]);
        (withTriggers ? withSeconds : withoutSeconds).push(result.seconds);
        log(
          `round ${round + 1}/${rounds}: seed:volume ${perRound} meetings ${withTriggers ? 'with' : 'without'} the change triggers: ${result.seconds} s`,
        );
      }
    }
  } finally {
    await set(true);
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    meetings: perRound * rounds,
    with_seconds: withSeconds,
    without_seconds: withoutSeconds,
    ratio: Math.round((sum(withSeconds) / sum(withoutSeconds)) * 1000) / 1000,
  };
}

/**
 * A writer commits one change a `1000 / rate` ms, each to another meeting, and notes when each
 * commit returned; a reader polls the feed every 50 ms from the head and notes when it first sees
 * each one. No long transaction runs meanwhile. The latency is the difference.
 */
export async function feedLatency(db: BenchDatabase, baseUrl: string, tenant: Tenant, token: string, rate: number, seconds: number) {
  const { rows } = await db.owner.query<{ id: string; public_id: string }>(
    `SELECT id::text AS id, public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY random() LIMIT $2`,
    [tenant.internalId, rate * seconds],
  );
  const get = async (path: string) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    return (await response.json()) as { data: Array<{ object_id: string }>; pagination: { next_cursor: string; has_more: boolean } };
  };
  let cursor = (await get('/v1/changes?types=meeting&start=now')).pagination.next_cursor;
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  let writing = true;
  const writer = new Client({ connectionString: db.urls.owner, application_name: 'bench-feed-writer' });
  await writer.connect();
  const write = (async () => {
    const started = performance.now();
    for (let i = 0; i < rows.length; i++) {
      const due = started + (i * 1000) / rate;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      await writer.query(`UPDATE recordings SET title = 'Bench ' || $2 WHERE id = $1`, [rows[i].id, i]);
      committed.set(rows[i].public_id, performance.now());
    }
    writing = false;
  })();
  let deadline = Infinity;
  try {
    while ((writing || committed.size > 0) && performance.now() < deadline) {
      for (;;) {
        const page = await get(`/v1/changes?types=meeting&limit=100&cursor=${cursor}`);
        const now = performance.now();
        for (const e of page.data) {
          const at = committed.get(e.object_id);
          if (at !== undefined) {
            latencies.push(now - at);
            committed.delete(e.object_id);
          }
        }
        cursor = page.pagination.next_cursor;
        if (!page.pagination.has_more) break;
      }
      // Once the writer is done, the last commits get 10 s to appear; what never does is reported missing.
      if (!writing && deadline === Infinity) deadline = performance.now() + 10_000;
      await new Promise((r) => setTimeout(r, 50));
    }
    await write;
  } finally {
    await writer.end();
  }
  const p = percentiles(latencies);
  return {
    rate,
    seconds,
    samples: latencies.length,
    missing: committed.size,
    p50_ms: Math.round(p.p50),
    p99_ms: Math.round(p.p99),
    max_ms: Math.round(p.max),
  };
}
