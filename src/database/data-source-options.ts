import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export const MIGRATIONS_TABLE = 'schema_migrations';

export interface PoolSettings {
  applicationName: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** Seconds before a pooled connection is replaced (0: never). */
  lifetimeSeconds: number;
  /** Uses of one pooled connection before it is replaced: a backend's caches never grow without end. */
  maxUses: number;
}

export const DEFAULT_POOL: PoolSettings = {
  applicationName: 'conversation-read-api',
  poolSize: 10,
  statementTimeoutMs: 5000,
  connectTimeoutMs: 2000,
  idleInTransactionTimeoutMs: 10_000,
  lifetimeSeconds: 1800,
  maxUses: 10_000,
};

/**
 * The one description of a connection, used by the Nest module, the migration runner, the
 * CLI and `ormconfig.ts`. Migrations only: the schema is never synchronized from entities.
 */
export function dataSourceOptions(url: string, pool: Partial<PoolSettings> = {}, name?: string): DataSourceOptions {
  const p = { ...DEFAULT_POOL, ...pool };
  return {
    name,
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: p.poolSize,
      application_name: p.applicationName,
      connectionTimeoutMillis: p.connectTimeoutMs,
      // Server-side budgets: a runaway query is cancelled by PostgreSQL itself, and a
      // transaction left open by a lost client does not hold locks forever.
      statement_timeout: p.statementTimeoutMs,
      idle_in_transaction_session_timeout: p.idleInTransactionTimeoutMs,
      keepAlive: true,
      // Recycled: whatever a backend accumulates (prepared statements, plans, catalog caches)
      // is returned to the server after a bounded number of uses and a bounded time.
      maxUses: p.maxUses,
      maxLifetimeSeconds: p.lifetimeSeconds,
    },
  };
}
