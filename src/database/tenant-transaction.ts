import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import type { PoolClient, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { RequestStore } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import { Metrics, PoolLike, secondsSince } from '../metrics/metrics';
import { PoolGate } from './pool-gate';
import { ReadReplicas } from './read-replicas';
import { PreparedStatements } from './prepared-statements';
import { inTransaction } from '../common/transaction';

declare module '../common/http/request-context' {
  interface RequestStore {
    /** The statements of the request's read-only tenant transaction, while it is open. */
    tenantSql?: TenantSql;
    /** The transaction authentication opened (TenantTransaction.openWith), until the request's work ends it. */
    openedTenant?: OpenedTenant;
    /** A heavy request (an `include` part of HEAVY_UNITS or more): its connection waits for a heavy turn too (PoolGate.heavy). */
    heavyRequest?: boolean;
  }
}

/**
 * A tenant transaction opened ahead of the request's work: committed once the work succeeds,
 * rolled back otherwise, and its connection released exactly once, whichever comes first
 * (`end`, or the response closing after a refusal by a later guard).
 */
export class OpenedTenant {
  private ended = false;
  private claimed = false;

  constructor(
    readonly sql: TenantSql,
    private readonly client: PoolClient,
    private readonly release: () => Promise<void>,
  ) {}

  /** The request's work takes it over (only while it is open): from then on only the work ends it. */
  claim(): boolean {
    if (this.ended) return false;
    this.claimed = true;
    return true;
  }

  /** Ends it unless the work took it over: the response closed before the work ran (a refusal, an aborted request). */
  endUnclaimed(): void {
    if (!this.claimed) void this.end(false).catch(() => undefined);
  }

  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await this.client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      if (commit) throw error;
    } finally {
      await this.release();
    }
  }
}

/**
 * The statements of one tenant transaction. Each runs as a **named prepared statement** on
 * the transaction's connection (the name is a hash of its text, and a statement's values are
 * always parameters, so the set of texts is small and fixed): PostgreSQL parses it once per
 * connection and keeps a generic plan instead of planning the statement anew on every request.
 * For the record query (a dozen correlated subqueries) the planning cost several times the
 * execution. With no statements to keep (DB_MAX_PREPARED_STATEMENTS=0, for poolers in
 * transaction mode) every statement is unnamed.
 */
export class TenantSql {
  constructor(
    private readonly client: PoolClient,
    private readonly prepared: PreparedStatements,
  ) {}

  query<T>(text: string, values: unknown[]): Promise<T[]> {
    return this.prepared.run<T & QueryResultRow>(this.client, text, values);
  }
}

/**
 * Runs a unit of work in one READ ONLY transaction whose `app.company_id` is the tenant, so
 * row-level security hides every other company's rows even from a query that forgets its
 * company filter. The setting is transaction-local: it cannot leak to the next user of the
 * pooled connection.
 */
@Injectable()
export class TenantTransaction implements OnModuleInit {
  private readonly prepared: PreparedStatements;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cls: ClsService<RequestStore>,
    config: AppConfig,
    private readonly metrics: Metrics,
    private readonly gate: PoolGate,
    private readonly replicas: ReadReplicas,
  ) {
    this.prepared = new PreparedStatements(config.database.maxPreparedStatements);
    this.auditTimeoutMs = config.auditTimeoutMs;
  }

  private readonly auditTimeoutMs: number;

  onModuleInit(): void {
    const pool = (this.dataSource.driver as unknown as { master?: PoolLike }).master;
    if (pool) this.metrics.watchPool('api', pool);
  }

  /**
   * A connection of the API's pool, taken in the company's turn at the fair gate (pool-gate.ts;
   * a heavy request, marked by authentication, in a heavy turn first),
   * the wait for both measured (`db_pool_wait_seconds{pool="api"}`). The release gives the
   * connection back, then the turn, exactly once; a failure to connect gives the turn back at once.
   */
  private async connect(
    lane: string,
    where: 'read' | 'primary',
    signal?: AbortSignal,
  ): Promise<{ client: PoolClient; release: () => Promise<void> }> {
    const started = process.hrtime.bigint();
    const heavy = this.cls.isActive() && this.cls.get('heavyRequest') === true;
    const endTurn = await this.gate.turn(lane, signal, heavy);
    let client: PoolClient;
    let giveBack: () => Promise<void>;
    try {
      // A read goes to a hot standby when one is usable (read-replicas.ts); the gate's turn bounds
      // the connections taken in all, wherever they are.
      const onReplica = where === 'read' ? await this.replicas.connectForRead() : undefined;
      if (onReplica) {
        client = onReplica.client;
        giveBack = async () => onReplica.client.release();
      } else {
        const runner = this.dataSource.createQueryRunner();
        client = (await runner.connect()) as PoolClient;
        giveBack = () => runner.release();
      }
    } catch (error) {
      endTurn();
      throw error;
    }
    this.metrics.poolWaited('api', secondsSince(started));
    return {
      client,
      release: async () => {
        try {
          await giveBack();
        } finally {
          endTurn();
        }
      },
    };
  }

  /**
   * The gate's lane of a company given by its internal id: the caller's public company id when it
   * is this request's company (so a request's lane is the one authentication queued it in, from
   * the token's `company` claim), the internal id otherwise (the worker's runs).
   */
  private laneOf(companyId: string): string {
    const principal = this.cls.isActive() ? this.cls.get('principal') : undefined;
    return principal?.companyId === companyId ? principal.companyPublicId : companyId;
  }

  /**
   * `work` in a read-only tenant transaction: on the primary, or where the `/v1` reads run
   * (`read`: a usable hot standby of DATABASE_REPLICA_URLS, else the primary). The worker's
   * reads (webhook dispatch) stay on the primary.
   */
  async run<T>(companyId: string, work: (sql: TenantSql) => Promise<T>, where: 'read' | 'primary' = 'primary'): Promise<T> {
    checkTenant(companyId);
    const { client, release } = await this.connect(this.laneOf(companyId), where);
    try {
      // One round trip: the id is a validated integer, so it is inlined, not interpolated text.
      // Generic plans, always: left to choose, PostgreSQL kept planning the list query for
      // every request (4 ms, against 0.05 ms for the cached plan of the same shape), because
      // the generic plan's estimates looked costlier. Statements keep their values in
      // parameters except the page size (see limitClause), so a generic plan is the plan.
      const begin = `BEGIN READ ONLY; SELECT set_config('app.company_id', '${companyId}', true), set_config('plan_cache_mode', 'force_generic_plan', true)`;
      return await this.within(client, begin, work);
    } finally {
      await release();
    }
  }

  /**
   * The same tenant transaction as `run`, but one that may write: for the one thing the API
   * writes, the company's own webhook configuration (WEBHOOK_ADMIN_TABLES; the API role may write
   * nothing else, and row-level security holds the writes to the company as it does the reads).
   * `work` gets the connection itself (statements in pg's shape, results as `{rows}`); the
   * tenant's statements (`tenantSql`, what the repositories read through) run in the same transaction.
   */
  async runWritable<T>(companyId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    checkTenant(companyId);
    const { client, release } = await this.connect(this.laneOf(companyId), 'primary');
    try {
      // A write waits for its audit row before it commits (up to AUDIT_TIMEOUT_MS): the session's
      // idle-in-transaction limit must outlast that wait, or the server ends the transaction the row describes.
      const idleMs = Math.trunc(this.auditTimeoutMs + 5000);
      const begin = `BEGIN; SELECT set_config('app.company_id', '${companyId}', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('idle_in_transaction_session_timeout', '${idleMs}', true)`;
      return await this.within(client, begin, () => work(client));
    } finally {
      await release();
    }
  }

  /**
   * The export's snapshot, on `client` (a connection of the export pool, which the caller
   * releases): the same tenant transaction as `run`, REPEATABLE READ, so every statement sees
   * the database as of the first one, and allowed to wait idle for a slow reader up to `idleMs`.
   */
  async runSnapshot<T>(client: PoolClient, companyId: string, work: (sql: TenantSql) => Promise<T>, idleMs: number): Promise<T> {
    checkTenant(companyId);
    const begin = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT set_config('app.company_id', '${companyId}', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('idle_in_transaction_session_timeout', '${Math.trunc(idleMs)}', true)`;
    return this.within(client, begin, work);
  }

  private within<T>(client: PoolClient, begin: string, work: (sql: TenantSql) => Promise<T>): Promise<T> {
    const sql = new TenantSql(client, this.prepared);
    return inTransaction(
      client,
      () =>
        this.cls.run({ ifNested: 'inherit' }, () => {
          this.cls.set('tenantSql', sql);
          return work(sql);
        }),
      begin,
    );
  }

  /**
   * Opens the request's tenant transaction and reads, in the same round trip, the row that names
   * its tenant: `lookup` is a statement (its values written in as literals by the caller, with
   * `escapeLiteral`) whose one row has `company_id`; the transaction's `app.company_id` is set
   * from it. Authentication uses it to check the client's state and open the transaction at
   * once: one round trip fewer per request than a lookup, then `BEGIN`. Without a row the
   * transaction is ended at once and null returned. The caller decides whether the row admits
   * the request and calls `abandon()` otherwise; the interceptor that runs the request's work
   * ends it (`finishOpened`). The connection is taken in the turn of `lane` at the fair gate: the
   * company the verified token names (a wrong claim finds no row, or a row the caller refuses);
   * a `signal` aborted (the client went away) leaves the gate's queue.
   */
  async openWith<R extends { company_id: string }>(
    lookup: (escapeLiteral: (value: string) => string) => string,
    lane: string,
    signal?: AbortSignal,
  ): Promise<R | null> {
    const { client, release } = await this.connect(lane, 'read', signal);
    const opened = new OpenedTenant(new TenantSql(client, this.prepared), client, release);
    try {
      const results = (await client.query(
        `BEGIN READ ONLY; SELECT l.*, set_config('app.company_id', l.company_id::text, true) AS _tenant,
           set_config('plan_cache_mode', 'force_generic_plan', true) AS _plans FROM (${lookup((v) => client.escapeLiteral(v))}) l`,
      )) as unknown as Array<{ rows: R[] }>;
      const rows = results[1].rows;
      if (rows.length !== 1) {
        await opened.end(false);
        return null;
      }
      this.cls.set('openedTenant', opened);
      return rows[0];
    } catch (error) {
      await opened.end(false);
      throw error;
    }
  }

  /** Ends the transaction authentication opened for this request, if any, without its work (a refusal). */
  async abandon(): Promise<void> {
    const opened = this.cls.get('openedTenant');
    this.cls.set('openedTenant', undefined);
    await opened?.end(false);
  }

  /**
   * Runs the request's work in the transaction authentication opened (committed after it,
   * rolled back if it throws), or in one of its own when none was opened.
   */
  async runOpened<T>(companyId: string, work: () => Promise<T>): Promise<T> {
    const opened = this.cls.get('openedTenant');
    if (!opened) return this.run(companyId, work, 'read');
    this.cls.set('openedTenant', undefined);
    if (!opened.claim()) throw new Error('the tenant transaction ended before the request could use it (the response closed)');
    // The request's own context holds it while the work runs (no nested context needed: one request, one transaction).
    this.cls.set('tenantSql', opened.sql);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await opened.end(false);
      throw error;
    } finally {
      this.cls.set('tenantSql', undefined);
    }
    await opened.end(true);
    return result;
  }

  /** Runs a statement in the current request's tenant transaction (outside one, a programming error). */
  query<T>(text: string, values: unknown[]): Promise<T[]> {
    const sql = this.cls.get('tenantSql');
    if (!sql) throw new Error('no tenant transaction in this context');
    return sql.query<T>(text, values);
  }
}

/** The company id is written into the statement: only ever an internal integer id. */
function checkTenant(companyId: string): void {
  if (!/^\d+$/.test(companyId)) throw new Error('tenant transaction needs an internal company id');
}
