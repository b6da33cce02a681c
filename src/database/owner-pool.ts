import { Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { Metrics } from '../metrics/metrics';
import { survivePoolErrors } from './pool-errors';
import { inTransaction } from '../common/transaction';

/** What a statement runs on: the pool, or one connection inside a transaction. */
export type Sql = Pick<PoolClient, 'query'>;

/**
 * The schema owner's connections for the background work and the admin side (the webhook tables,
 * pg-boss's queue, the read model): one pool per process, sized and timed from AppConfig
 * (`database.owner`), surviving a lost connection (survivePoolErrors), watched by the metrics as
 * `owner`. The API role's pool (TypeORM) stays the only one that serves integrators' reads.
 */
@Injectable()
export class OwnerPool implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  readonly pool: Pool;

  constructor(urls: DatabaseUrls, config: AppConfig, metrics: Metrics) {
    const { owner, connectTimeoutMs } = config.database;
    this.pool = new Pool({
      connectionString: urls.owner,
      max: owner.poolSize,
      application_name: 'conversation-read-api-owner',
      connectionTimeoutMillis: Math.max(connectTimeoutMs, 5000),
      statement_timeout: owner.statementTimeoutMs,
      idle_in_transaction_session_timeout: owner.idleInTransactionTimeoutMs,
      keepAlive: true,
    });
    survivePoolErrors(this.pool, this.logger, 'schema owner');
    metrics.watchPool('owner', this.pool);
  }

  /** The very last phase of shutdown: every loop has stopped before it (beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  query: Sql['query'] = ((text: string, values?: unknown[]) => this.pool.query(text, values)) as Sql['query'];

  /** Runs `work` in one transaction on one connection. */
  async transaction<T>(work: (sql: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await inTransaction(client, () => work(client));
    } finally {
      client.release();
    }
  }
}

/** The owner pool, one instance for every module that imports this. */
@Module({ providers: [OwnerPool], exports: [OwnerPool] })
export class OwnerPoolModule {}
