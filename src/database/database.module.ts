import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { Metrics } from '../metrics/metrics';
import { DatabaseRoleCheck } from './database-role-check';
import { dataSourceOptions } from './data-source-options';
import { PoolGate } from './pool-gate';
import { ExportPool } from './export-pool';
import { ReadReplicas } from './read-replicas';
import { TenantTransaction } from './tenant-transaction';

/**
 * The default data source. The API connects as the API role (reads under row-level
 * security), with a second pool of the same role for the export streams (ExportPool); the CLI
 * connects as the schema owner (writes companies, clients, seeds).
 */
@Global()
@Module({})
export class DatabaseModule {
  /**
   * The API role's side: the API and the worker. Both know the hot standbys of
   * DATABASE_REPLICA_URLS: the API's `/v1` reads run there, and both serve the feed (the route,
   * the webhooks) only as far as every standby read from has replayed (ReadReplicas.settledHorizon).
   * The worker itself reads on the primary only.
   */
  static forApi(): DynamicModule {
    return DatabaseModule.build('api', true);
  }

  static forOwner(): DynamicModule {
    return DatabaseModule.build('owner', false);
  }

  private static build(role: 'api' | 'owner', replicas: boolean): DynamicModule {
    // The fair gate shares the API's request pool among companies; the owner's side has no such pool to share.
    const gate = {
      provide: PoolGate,
      inject: [AppConfig, Metrics],
      useFactory: (config: AppConfig, metrics: Metrics) =>
        role === 'api'
          ? new PoolGate(config.database, config.database.connectTimeoutMs, config.database.statementTimeoutMs, metrics)
          : PoolGate.open(config.database.connectTimeoutMs, metrics),
    };
    const readReplicas = {
      provide: ReadReplicas,
      inject: [DatabaseUrls, AppConfig, Metrics],
      useFactory: (urls: DatabaseUrls, config: AppConfig, metrics: Metrics) => new ReadReplicas(urls, config, metrics, replicas),
    };
    const providers = [TenantTransaction, gate, readReplicas, ...(role === 'api' ? [DatabaseRoleCheck, ExportPool] : [])];
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DatabaseUrls, AppConfig],
          useFactory: (urls: DatabaseUrls, config: AppConfig) => ({
            ...dataSourceOptions(role === 'api' ? urls.api : urls.owner, {
              applicationName: role === 'api' ? 'conversation-read-api' : 'conversation-read-api-admin',
              poolSize: role === 'api' ? config.database.poolSize : 2,
              statementTimeoutMs: role === 'api' ? config.database.statementTimeoutMs : 600_000,
              connectTimeoutMs: config.database.connectTimeoutMs,
              idleInTransactionTimeoutMs: config.database.idleInTransactionTimeoutMs,
              lifetimeSeconds: config.database.connectionLifetimeSeconds,
              maxUses: config.database.connectionMaxUses,
            }),
            retryAttempts: 2,
            retryDelay: 500,
          }),
        }),
      ],
      providers,
      exports: [TenantTransaction, PoolGate, ReadReplicas, ...(role === 'api' ? [ExportPool] : [])],
    };
  }
}
