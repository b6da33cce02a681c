import { DataSource } from 'typeorm';
import { prepareAuditStore, sameDatabase } from '../audit/audit-store';
import { DatabaseUrls } from '../config/database-urls';
import { dataSourceOptions } from './data-source-options';
import { migrateAndGrant, roleOf } from './schema-privileges';

/**
 * Applies pending migrations as the schema owner and grants the API role its privileges;
 * prepares the audit database too when it is a separate one.
 */
export async function migrate(urls: DatabaseUrls): Promise<string[]> {
  const owner = new DataSource(
    dataSourceOptions(urls.owner, { applicationName: 'conversation-read-api-migrations', poolSize: 1, statementTimeoutMs: 600_000 }),
  );
  await owner.initialize();
  try {
    const applied = await migrateAndGrant(owner, roleOf(urls.api));
    if (!sameDatabase(urls.audit, urls.api)) await prepareAuditStore(urls.auditOwner, roleOf(urls.audit));
    return applied;
  } finally {
    await owner.destroy();
  }
}
