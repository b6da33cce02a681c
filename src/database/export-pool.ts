import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { Metrics, secondsSince } from '../metrics/metrics';
import { survivePoolErrors } from './pool-errors';
import { ReadReplicas } from './read-replicas';

/** A connection of the export pool, held for one export's snapshot. */
export interface ExportLease {
  client: PoolClient;
  /** The hot standby the snapshot reads, if it is not the primary's. */
  replica?: string;
  /**
   * Takes the advisory lock `key` for the life of the lease, or answers false when it is held
   * elsewhere. Always on the primary: advisory locks are each server's own, so a lock taken on a
   * standby would not count exports running on another. (Without standbys: in the snapshot's own
   * transaction, which must be open.)
   */
  tryLock(key: string): Promise<boolean>;
  /** Gives the connection back (`broken`: closed instead, after a failure that may have left it unusable). */
  release(broken?: boolean): void;
}

/**
 * The export streams' own connections: an export holds its connection for its whole life (its
 * snapshot's transaction waits on the reader), so exports never take the request pool's, and a
 * slow reader cannot leave other requests, tokens or readiness without one. Same role, URL and
 * session settings as the API pool (the tenant transaction sets the rest); watched by the
 * metrics as `export`. Its size is also the cap on this instance's exports across companies:
 * `tryLease` answers null at once when every connection is leased, so a new export is refused
 * rather than left waiting behind a slow reader. (pg's pool has no "connect unless full": its
 * `connect` queues, hence the count kept here.)
 */
@Injectable()
export class ExportPool implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private readonly pool: Pool;
  private leased = 0;

  constructor(
    urls: DatabaseUrls,
    config: AppConfig,
    private readonly metrics: Metrics,
    private readonly replicas: ReadReplicas,
  ) {
    const db = config.database;
    this.size = config.exports.poolSize;
    this.idleMs = (config.exports.exportIdleSeconds + 30) * 1000;
    this.pool = new Pool({
      connectionString: urls.api,
      max: this.size,
      application_name: 'conversation-read-api-export',
      connectionTimeoutMillis: db.connectTimeoutMs,
      statement_timeout: db.statementTimeoutMs,
      idle_in_transaction_session_timeout: db.idleInTransactionTimeoutMs,
      keepAlive: true,
      maxUses: db.connectionMaxUses,
      maxLifetimeSeconds: db.connectionLifetimeSeconds,
    });
    survivePoolErrors(this.pool, this.logger, 'export');
    metrics.watchPool('export', this.pool);
  }

  readonly size: number;
  /** How long an export's transactions may idle: the snapshot's, and the lock's beside it on the primary. */
  readonly idleMs: number;

  /** Exports holding a connection now (or connecting). */
  get inUse(): number {
    return this.leased;
  }

  /**
   * A connection, or null at once when all of them are leased. The snapshot reads a usable hot
   * standby when there is one (read-replicas.ts; one that refuses the connection is left, and the
   * primary serves), and the lock of `tryLock` is then taken on a connection of this pool, on the
   * primary, in a transaction that writes nothing (so it holds nothing back there).
   */
  async tryLease(): Promise<ExportLease | null> {
    if (this.leased >= this.size) return null;
    this.leased++;
    let replica = this.replicas.pick();
    let client: PoolClient;
    let locks: PoolClient | undefined;
    const started = process.hrtime.bigint();
    try {
      client = replica
        ? await replica.exports.connect().catch((error: unknown) => {
            this.replicas.leave(replica!, error);
            replica = undefined;
            return this.pool.connect();
          })
        : await this.pool.connect();
    } catch (error) {
      this.leased--;
      throw error;
    }
    this.metrics.poolWaited('export', secondsSince(started));
    let released = false;
    return {
      client,
      replica: replica?.name,
      tryLock: async (key) => {
        // Without a standby: in the snapshot's own transaction. With one: on the primary, in a
        // transaction of its own that writes nothing (so it holds no snapshot back) and ends,
        // freeing the lock, when the lease does, or when this process is gone and the transaction
        // has idled as long as the export's may.
        if (replica && !locks) {
          locks = await this.pool.connect();
          await locks.query(`BEGIN; SELECT set_config('idle_in_transaction_session_timeout', '${this.idleMs}', true)`);
        }
        const { rows } = await (locks ?? client).query<{ taken: boolean }>(
          'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS taken',
          [key],
        );
        return rows[0].taken;
      },
      release: (broken) => {
        if (released) return;
        released = true;
        client.release(broken || undefined);
        if (!locks) {
          this.leased--;
          return;
        }
        const held = locks;
        // The lease is over once its locks are: the connection comes back after the COMMIT (closed if that failed).
        held
          .query('COMMIT')
          .then(
            () => held.release(),
            () => held.release(true),
          )
          .finally(() => this.leased--);
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
