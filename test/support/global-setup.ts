import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { prepareAuditStore } from '../../src/audit/audit-store';
import { DatabaseUrls } from '../../src/config/database-urls';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';

declare global {
  var __TEST_CLUSTERS__: EmbeddedDatabase[] | undefined;
}

/**
 * One real PostgreSQL for the whole run, migrated once, plus a second disposable cluster
 * that fault tests may stop and start. Both are embedded, on free ports, in a temp dir.
 */
export default async function globalSetup(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'conv-api-test-'));
  await chmod(root, 0o711); // the cluster runs as "postgres" and must reach its directory
  const [main, faults] = await Promise.all([
    startEmbeddedPostgres(join(root, 'main'), { database: 'conversations_test' }),
    startEmbeddedPostgres(join(root, 'faults'), { database: 'conversations_faults_test' }),
  ]);
  globalThis.__TEST_CLUSTERS__ = [main, faults];
  for (const cluster of [main, faults]) await migrate(new DatabaseUrls(cluster.apiUrl, cluster.ownerUrl, cluster.apiUrl));
  const audit = await separateAuditDatabase(main);

  Object.assign(process.env, {
    // Fault tests drive pg_ctl of the build the clusters run (a reachable copy when root needs one).
    TEST_PG_CTL: join(faults.buildDir, 'bin', 'pg_ctl'),
    TEST_ROOT: root,
    TEST_DATABASE_URL: main.apiUrl,
    TEST_MIGRATION_DATABASE_URL: main.ownerUrl,
    TEST_SUPER_DATABASE_URL: main.superUrl,
    TEST_FAULTS_DATABASE_URL: faults.apiUrl,
    TEST_FAULTS_MIGRATION_DATABASE_URL: faults.ownerUrl,
    TEST_FAULTS_DATA_DIR: faults.dataDir,
    TEST_FAULTS_PORT: String(faults.port),
    TEST_AUDIT_DATABASE_URL: audit.apiUrl,
    TEST_AUDIT_MIGRATION_DATABASE_URL: audit.ownerUrl,
  });
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
