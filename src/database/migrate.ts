import { DataSource } from 'typeorm';
import { DatabaseUrls } from '../config/runtime';
import { dataSourceOptions } from './data-source-options';
import { migrateAndGrant, roleOf } from './schema-privileges';

/** Applies pending migrations as the schema owner and grants the API role its privileges. */
export async function migrate(urls: DatabaseUrls): Promise<string[]> {
  const owner = new DataSource(
    dataSourceOptions(urls.owner, { applicationName: 'conversation-read-api-migrations', poolSize: 1, statementTimeoutMs: 600_000 }),
  );
  await owner.initialize();
  try {
    return await migrateAndGrant(owner, roleOf(urls.api));
  } finally {
    await owner.destroy();
  }
}
