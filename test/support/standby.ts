import { randomBytes } from 'node:crypto';
import { appendFile, chmod, chown, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { DatabaseUrls } from '../../src/config/database-urls';
import { Account, clusterAccount, reachableClusterDir } from '../../src/database/embedded-cluster-account';
import { EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { startServer, stopServer } from '../../src/database/embedded-cluster-process';
import { migrate } from '../../src/database/migrate';

/*
 * A real PostgreSQL hot standby for the read-replica tests (#51). The packaged build has no
 * pg_basebackup: the standby is an online copy of the primary's data directory taken between
 * pg_backup_start() and pg_backup_stop(), which then streams from the primary through a physical
 * replication slot (the slot, not wal_keep_size, keeps every WAL segment the standby still needs).
 */

/** A hot standby of an embedded cluster: the primary's roles and passwords, on a port of its own. */
export interface Standby {
  apiUrl: string;
  ownerUrl: string;
  superUrl: string;
  port: number;
  /** The standby's data directory (its own copy, owned by the cluster's account). */
  dataDir: string;
  /** Stops applying WAL (it is still received), waited for until replay is paused. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the standby has received (not necessarily replayed) all the WAL the primary has now. */
  received(timeoutMs?: number): Promise<void>;
  /** Waits until the standby has replayed all the WAL the primary has now: every commit made before the call is visible. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** pg_promote(), waited for until the server is out of recovery and accepts writes. */
  promote(): Promise<void>;
  /** Fast shutdown, waited for; drops the primary's slot when the primary still runs. Idempotent. */
  stop(): Promise<void>;
}

/** A dedicated, migrated primary and its hot standby. */
export interface ReplicatedPair {
  primary: EmbeddedDatabase;
  standby: Standby;
  /** Stops the standby, then the primary, and removes their directories; safe after a failure midway. */
  stop(): Promise<void>;
}

/**
 * A wait on replication, sized for a machine twice as slow as ours at its busiest: replay of a
 * test's few statements takes milliseconds when the machine is idle.
 */
const REPLICATION_DEADLINE_MS = 30_000;

/** The tests' speed settings (as test/support/global-setup.ts): the pair is thrown away after its file. */
const FAST = { fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' };

/**
 * Settings a hot standby must have at least as high as its primary (else it refuses to start or
 * pauses at the first WAL record that needs more), and the speed settings: copied from the
 * primary, since it may have been started with any of them on its command line.
 */
const MIRRORED_SETTINGS = [
  'max_connections',
  'max_worker_processes',
  'max_wal_senders',
  'max_prepared_transactions',
  'max_locks_per_transaction',
  'fsync',
  'full_page_writes',
  'synchronous_commit',
];

/**
 * Starts a primary of its own for one spec file (in a new directory under TEST_ROOT, which the
 * global teardown removes should `stop` never run), migrates it as global setup migrates the
 * workers' clusters, and makes its standby. Shared clusters are left alone: a standby's slot,
 * its replication connection and hot_standby_feedback would all show in their tests.
 */
export async function startReplicatedPair(name: string): Promise<ReplicatedPair> {
  const root = process.env.TEST_ROOT ?? (await mkdtemp(join(tmpdir(), 'conv-api-standby-')));
  const dir = join(root, `replicated-${name.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true, mode: 0o711 });
  // As root the clusters run as "postgres", which must reach their directories (mkdtemp makes 700):
  // else both would be relocated to a shared home, outside what this pair removes.
  for (const reached of [root, dir]) await chmod(reached, 0o711);
  let primary: EmbeddedDatabase | undefined;
  let standby: Standby | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await standby?.stop().catch(() => undefined);
    await primary?.stop().catch(() => undefined);
    // A cluster relocated all the same (root, a private parent above TEST_ROOT) has a directory of its own in the home.
    for (const cluster of [primary?.dataDir, standby?.dataDir]) {
      if (cluster && !cluster.startsWith(`${dir}/`)) await rm(dirname(cluster), { recursive: true, force: true });
    }
    await rm(dir, { recursive: true, force: true });
    if (!process.env.TEST_ROOT) await rm(root, { recursive: true, force: true });
  };
  try {
    primary = await startEmbeddedPostgres(join(dir, 'primary'), { database: `${name.replace(/\W/g, '_')}_test`, settings: FAST });
    await migrate(new DatabaseUrls(primary.apiUrl, primary.ownerUrl, primary.apiUrl));
    standby = await makeStandby(primary, join(dir, 'standby'));
    return { primary, standby, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Makes a hot standby of the running `primary` in `dir` (its cluster in `dir/postgres`, or, as
 * root below a private parent, where the embedded module would put it) and starts it. The primary
 * must allow replication (wal_level replica, max_wal_senders > 0); a pg_hba line for replication
 * from 127.0.0.1 is added when missing.
 */
export async function makeStandby(primary: EmbeddedDatabase, dir: string): Promise<Standby> {
  const account = clusterAccount();
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const dataDir = await reachableClusterDir(dir, account, [join(tmpdir(), 'conversation-read-api')], null);
  // Created (and chowned) there only for root; initdb would make it for a new cluster, the copy needs it first.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const slot = `standby_${randomBytes(6).toString('hex')}`;
  const su = await connect(primary.superUrl);
  let settings: Record<string, string>;
  try {
    await assertReplicationAllowed(su);
    settings = Object.fromEntries(
      (
        await su.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [MIRRORED_SETTINGS])
      ).rows.map((row) => [row.name, row.setting]),
    );
    // Reserved now, before the backup's checkpoint: the primary keeps all WAL from here on until the slot is dropped.
    await su.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
    await onlineCopy(su, primary.dataDir, dataDir, account);
  } catch (error) {
    await su.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
    throw error;
  } finally {
    await su.end();
  }

  const { password } = new URL(primary.superUrl);
  const conninfo = [
    'host=127.0.0.1',
    `port=${primary.port}`,
    'user=postgres',
    `password=${conninfoValue(decodeURIComponent(password))}`,
    `application_name=${slot}`,
  ].join(' ');
  const recovery = `\n# standby of the primary on port ${primary.port} (test/support/standby.ts)\nprimary_conninfo = ${confValue(conninfo)}\nprimary_slot_name = ${confValue(slot)}\n`;
  await writeOwned(join(dataDir, 'postgresql.auto.conf'), recovery, account, true);
  await writeOwned(join(dataDir, 'standby.signal'), '', account);

  const server = await startServer(primary.buildDir, dataDir, port, account, () => undefined, {
    ...settings,
    hot_standby: 'on',
    // The primary keeps rows a standby query still reads: no query of a test is cancelled by replay.
    hot_standby_feedback: 'on',
  }).catch(async (error: unknown) => {
    await dropSlot(primary.superUrl, slot); // else the primary keeps WAL for a standby that never came
    throw error;
  });
  const lastResort = () => void server.kill('SIGINT');
  process.on('exit', lastResort);
  const onStandby = (url: string) => Object.assign(new URL(url), { port: String(port) }).toString();
  const standby = {
    apiUrl: onStandby(primary.apiUrl),
    ownerUrl: onStandby(primary.ownerUrl),
    superUrl: onStandby(primary.superUrl),
    port,
    dataDir,
  };

  /** Polls `done` (a query on the standby given the primary's LSN as $1) until it is true or the deadline passes. */
  const waitForLsn = async (what: string, done: string, timeoutMs: number) => {
    const target = await flushedLsn(primary.superUrl);
    await untilTrue(standby.superUrl, done, [target], timeoutMs, async (client) => {
      const state = (
        await client.query(
          'SELECT pg_last_wal_receive_lsn() AS received, pg_last_wal_replay_lsn() AS replayed, pg_get_wal_replay_pause_state() AS replay',
        )
      ).rows[0] as Record<string, string | null>;
      return `the standby has not ${what} the primary's WAL up to ${target} within ${timeoutMs} ms (${JSON.stringify(state)})`;
    });
  };

  let stopped = false;
  return {
    ...standby,
    pauseReplay: async () => {
      await withClient(standby.superUrl, (client) => client.query('SELECT pg_wal_replay_pause()'));
      // Pausing is requested, not done: replay may be in the middle of a record.
      await untilTrue(standby.superUrl, `SELECT pg_get_wal_replay_pause_state() = 'paused'`, [], REPLICATION_DEADLINE_MS, async () => {
        return `replay of the standby did not pause within ${REPLICATION_DEADLINE_MS} ms`;
      });
    },
    resumeReplay: async () => {
      await withClient(standby.superUrl, (client) => client.query('SELECT pg_wal_replay_resume()'));
    },
    received: (timeoutMs = REPLICATION_DEADLINE_MS) => waitForLsn('received', 'SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn', timeoutMs),
    caughtUp: (timeoutMs = REPLICATION_DEADLINE_MS) => waitForLsn('replayed', 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn', timeoutMs),
    promote: async () => {
      await withClient(standby.superUrl, (client) =>
        client.query('SELECT pg_promote(true, $1)', [Math.ceil(REPLICATION_DEADLINE_MS / 1000)]),
      );
      await untilTrue(standby.superUrl, 'SELECT NOT pg_is_in_recovery()', [], REPLICATION_DEADLINE_MS, async () => {
        return `the standby was still in recovery ${REPLICATION_DEADLINE_MS} ms after pg_promote()`;
      });
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', lastResort);
      await stopServer(server);
      await dropSlot(primary.superUrl, slot);
    },
  };
}

/** Refuses a primary a standby could never stream from, saying which setting is missing. */
async function assertReplicationAllowed(su: Client): Promise<void> {
  const { wal_level, max_wal_senders } = (
    await su.query<{ wal_level: string; max_wal_senders: string }>(
      `SELECT current_setting('wal_level') AS wal_level, current_setting('max_wal_senders') AS max_wal_senders`,
    )
  ).rows[0];
  if (wal_level === 'minimal' || Number(max_wal_senders) === 0) {
    throw new Error(`the primary cannot feed a standby: wal_level = ${wal_level}, max_wal_senders = ${max_wal_senders}`);
  }
  // initdb's pg_hba.conf allows replication from 127.0.0.1 (scram-sha-256); a cluster whose file lost that line gets it back.
  const hba = await su.query<{ file_name: string }>(
    `SELECT file_name FROM pg_hba_file_rules
      WHERE type = 'host' AND error IS NULL AND 'replication' = ANY(database)
        AND ('all' = ANY(user_name) OR 'postgres' = ANY(user_name)) AND (address = '127.0.0.1' OR address = 'all')`,
  );
  if (hba.rowCount) return;
  const file = (await su.query<{ hba_file: string }>('SHOW hba_file')).rows[0].hba_file;
  await appendFile(file, '\nhost    replication     all             127.0.0.1/32            scram-sha-256\n');
  await su.query('SELECT pg_reload_conf()');
}

/**
 * The online backup: files copied between pg_backup_start() and pg_backup_stop() on one session,
 * then the backup_label pg_backup_stop() returns written into the copy (without it the standby
 * would start replay from the wrong checkpoint and be silently corrupt).
 */
async function onlineCopy(su: Client, from: string, to: string, account: Account): Promise<void> {
  await su.query(`SELECT pg_backup_start($1, true)`, [`standby ${to}`]);
  await copyCluster(from, to, account);
  const stopped = (
    await su.query<{ labelfile: string; spcmapfile: string | null }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)')
  ).rows[0];
  await writeOwned(join(to, 'backup_label'), stopped.labelfile, account);
  if (stopped.spcmapfile) await writeOwned(join(to, 'tablespace_map'), stopped.spcmapfile, account);
}

/** Directories whose contents a base backup leaves out (as pg_basebackup does): recreated empty. */
const EMPTIED_DIRS = new Set([
  'pg_wal',
  'pg_stat_tmp',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_subtrans',
]);
/** Files a base backup leaves out: the primary's lock and options, its logs, a stale label. */
const SKIPPED_FILES = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'postgresql.auto.conf.tmp',
  'current_logfiles',
  'current_logfiles.tmp',
  'backup_label',
  'backup_label.old',
  'tablespace_map',
  'backup_manifest',
  'restart.log', // test/support/postgres-control.ts's log of a restart by pg_ctl
]);

/**
 * Copies a running cluster's directory. Files may vanish while it runs (a dropped relation, a
 * temporary file): those are skipped, as WAL replay recreates what the standby needs. The copy
 * belongs to the cluster's account (ourselves, or "postgres" when we are root).
 */
async function copyCluster(from: string, to: string, account: Account): Promise<void> {
  const pending: Array<() => Promise<void>> = [];
  const walk = async (src: string, dst: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(src, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const source = join(src, entry.name);
      const target = join(dst, entry.name);
      if (entry.isSymbolicLink()) throw new Error(`cannot copy ${source}: tablespaces and linked directories are not supported`);
      if (entry.isDirectory()) {
        if (entry.name.startsWith('pgsql_tmp')) continue;
        await makeDir(target, account);
        if (depth === 0 && EMPTIED_DIRS.has(entry.name)) {
          // pg_wal's own subdirectories are expected by the server (and created if missing since 17; made anyway).
          if (entry.name === 'pg_wal') for (const sub of ['archive_status', 'summaries']) await makeDir(join(target, sub), account);
          continue;
        }
        await walk(source, target, depth + 1);
      } else if (entry.isFile()) {
        if ((depth === 0 && SKIPPED_FILES.has(entry.name)) || entry.name.startsWith('pg_internal.init')) continue;
        pending.push(async () => {
          try {
            await copyFile(source, target);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
            throw error;
          }
          if (account) await chown(target, account.uid, account.gid);
        });
      }
    }
  };
  await walk(from, to, 0);
  // A few at a time: thousands of small files, on a machine of two cores.
  const workers = Array.from({ length: 16 }, async () => {
    for (let job = pending.shift(); job; job = pending.shift()) await job();
  });
  await Promise.all(workers);
}

async function makeDir(path: string, account: Account): Promise<void> {
  await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  if (account) await chown(path, account.uid, account.gid);
}

async function writeOwned(path: string, text: string, account: Account, append = false): Promise<void> {
  await writeFile(path, text, { mode: 0o600, flag: append ? 'a' : 'w' });
  if (account) await chown(path, account.uid, account.gid);
}

/** A value in postgresql.conf syntax: single-quoted, quotes doubled. */
function confValue(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** A value in libpq's conninfo syntax: single-quoted, quotes and backslashes escaped. */
function conninfoValue(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/**
 * The primary's WAL position once everything committed so far is on its disk, where a standby can
 * receive it. The tests' clusters commit asynchronously (synchronous_commit = off): a commit
 * already reported may still be in WAL buffers, beyond pg_current_wal_lsn() and unsent. A
 * message flushed at once (PostgreSQL 17's `flush` argument) flushes all the WAL before it; a
 * synchronous commit would not do: one that wrote no WAL of its own is not flushed either.
 */
async function flushedLsn(superUrl: string): Promise<string> {
  return withClient(superUrl, async (client) => {
    await client.query(`SELECT pg_logical_emit_message(false, 'test-standby', 'caught up?', true)`);
    return (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
  });
}

/** Runs `query` (one boolean column) on one session until it answers true; past `timeoutMs`, fails with `explain`'s message. */
async function untilTrue(
  url: string,
  query: string,
  params: unknown[],
  timeoutMs: number,
  explain: (client: Client) => Promise<string>,
): Promise<void> {
  await withClient(url, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = (await client.query({ text: query, values: params, rowMode: 'array' })).rows[0] as unknown[];
      if (row[0] === true) return;
      if (Date.now() > deadline) throw new Error(await explain(client));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops the standby's slot so the primary stops keeping WAL for it; nothing to do when the primary is gone. */
async function dropSlot(superUrl: string, slot: string): Promise<void> {
  await withClient(superUrl, async (client) => {
    // The walsender may take a moment to release the slot after the standby went away.
    const deadline = Date.now() + REPLICATION_DEADLINE_MS;
    for (;;) {
      const row = (await client.query<{ active: boolean | null }>('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [slot]))
        .rows[0];
      if (!row) return;
      if (!row.active) {
        await client.query('SELECT pg_drop_replication_slot($1)', [slot]);
        return;
      }
      if (Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }).catch(() => undefined);
}
