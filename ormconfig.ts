import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source-options';

/**
 * Data source for the TypeORM CLI (migration:generate, migration:revert), as the schema owner.
 * `npm run migration:run` uses src/database/migrate.main.ts instead, which also grants the API role.
 */
const url = process.env.MIGRATION_DATABASE_URL || process.env.DATABASE_URL;
if (!url) throw new Error('Set MIGRATION_DATABASE_URL or DATABASE_URL to use the TypeORM CLI');

export default new DataSource(dataSourceOptions(url, { applicationName: 'conversation-read-api-migrations', statementTimeoutMs: 600_000 }));
