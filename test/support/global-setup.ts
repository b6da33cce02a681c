import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import { Client } from 'pg';
import { prepareAuditStore } from '../../src/audit/audit-store';
import { DatabaseUrls } from '../../src/config/database-urls';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { buildForProcesses } from './process-build';
import { WORKER_DATABASES } from './worker-databases';

declare global {
  var __TEST_CLUSTERS__: EmbeddedDatabase[] | undefined;
}

/**
 * Crash safety the tests do not need: the clusters live for one run and are thrown away, and
 * nothing here crashes the machine under them (a fault test's immediate stop loses nothing the
 * kernel already has). `synchronous_commit` stays on in the fault clusters, whose immediate stops
 * must not lose a commit already reported.
 */
const FAST = { fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' };
const FAST_BUT_COMMITTED = { fsync: 'off', full_page_writes: 'off' };

/**
 * Each Jest worker gets PostgreSQL of its own: a main cluster, migrated, with a separate audit
 * database, and a disposable cluster that fault tests stop and start. Two files running side by
 * side then share no database, no role, no `pg_stat_activity` and no pg-boss queue, so any
 * file may run beside any other. All are embedded, on free ports, in one temp dir, started at
 * once; meanwhile the app is compiled once for the processes tests start. Each worker's URLs
 * reach its files through test/support/worker-databases.ts.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'conv-api-test-'));
  await chmod(root, 0o711); // the cluster runs as "postgres" and must reach its directory
  globalThis.__TEST_CLUSTERS__ = [];
  const workers = Math.max(1, globalConfig.maxWorkers);
  const [build, ...perWorker] = await Promise.all([
    buildForProcesses(),
    ...Array.from({ length: workers }, (_, i) => workerDatabases(root, i + 1)),
  ]);

  Object.assign(process.env, {
    // Fault tests drive pg_ctl of the build the clusters run (a reachable copy when root needs one).
    TEST_PG_CTL: join(globalThis.__TEST_CLUSTERS__[0].buildDir, 'bin', 'pg_ctl'),
    TEST_ROOT: root,
    // The app compiled once for the processes tests start (test/support/process-build.ts).
    TEST_PROCESS_BUILD: build,
    [WORKER_DATABASES]: JSON.stringify(perWorker),
  });
}

/** One worker's clusters, migrated, as the environment its test files see. */
async function workerDatabases(root: string, worker: number): Promise<Record<string, string>> {
  const [main, faults] = await Promise.all([
    startEmbeddedPostgres(join(root, `main-${worker}`), { database: 'conversations_test', settings: FAST }),
    startEmbeddedPostgres(join(root, `faults-${worker}`), { database: 'conversations_faults_test', settings: FAST_BUT_COMMITTED }),
  ]);
  globalThis.__TEST_CLUSTERS__!.push(main, faults);
  await Promise.all([main, faults].map((cluster) => migrate(new DatabaseUrls(cluster.apiUrl, cluster.ownerUrl, cluster.apiUrl))));
  const audit = await separateAuditDatabase(main);
  return {
    TEST_DATABASE_URL: main.apiUrl,
    TEST_MIGRATION_DATABASE_URL: main.ownerUrl,
    TEST_SUPER_DATABASE_URL: main.superUrl,
    TEST_FAULTS_DATABASE_URL: faults.apiUrl,
    TEST_FAULTS_MIGRATION_DATABASE_URL: faults.ownerUrl,
    TEST_FAULTS_DATA_DIR: faults.dataDir,
    TEST_FAULTS_PORT: String(faults.port),
    TEST_AUDIT_DATABASE_URL: audit.apiUrl,
    TEST_AUDIT_MIGRATION_DATABASE_URL: audit.ownerUrl,
  };
}

/**
 * A separate audit database in the main cluster, prepared as `migration:run` prepares one:
 * audit tests break it (privileges revoked, table locked) without touching the shared trail.
 */
async function separateAuditDatabase(main: EmbeddedDatabase): Promise<{ apiUrl: string; ownerUrl: string }> {
  const withDatabase = (url: string) => Object.assign(new URL(url), { pathname: '/conversations_audit_test' }).toString();
  const owner = decodeURIComponent(new URL(main.ownerUrl).username);
  const su = new Client({ connectionString: main.superUrl });
  await su.connect();
  try {
    await su.query(`CREATE DATABASE conversations_audit_test OWNER "${owner}"`);
  } finally {
    await su.end();
  }
  const urls = { apiUrl: withDatabase(main.apiUrl), ownerUrl: withDatabase(main.ownerUrl) };
  await prepareAuditStore(urls.ownerUrl, decodeURIComponent(new URL(main.apiUrl).username));
  return urls;
}
