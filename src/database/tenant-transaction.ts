import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import { from, lastValueFrom, Observable } from 'rxjs';
import { createHash } from 'node:crypto';
import type { PoolClient, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { CTX, Principal } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';

/** What node-postgres believes is prepared on a connection (set only once the server confirmed it). */
const parsedBy = (client: PoolClient) =>
  (client as unknown as { connection: { parsedStatements: Record<string, unknown> } }).connection.parsedStatements;

/**
 * The named prepared statements of each pooled connection, least recently used first. A
 * statement of the record query costs its backend hundreds of KB, so a connection keeps at most
 * `max` of them: past that, the least recently used is forgotten by the driver (which otherwise
 * believes it still exists and skips preparing it again) and deallocated on the server. A name
 * is kept only once the driver saw the server prepare it, so a statement that failed to prepare
 * is never deallocated (which would fail, and fail another request with it).
 */
class PreparedStatements {
  private readonly byConnection = new WeakMap<PoolClient, Map<string, true>>();

  constructor(readonly max: number) {}

  /** Runs `text` on `client`, as a kept named statement when the cap allows, else unnamed. */
  async run<T extends QueryResultRow>(client: PoolClient, text: string, values: unknown[]): Promise<T[]> {
    if (this.max === 0) return (await client.query<T>({ text, values })).rows;
    const name = `t_${createHash('sha1').update(text).digest('base64url')}`;
    let kept = this.byConnection.get(client);
    if (!kept) this.byConnection.set(client, (kept = new Map()));
    if (!kept.delete(name)) {
      while (kept.size >= this.max) {
        const oldest = kept.keys().next().value as string;
        kept.delete(oldest);
        const parsed = parsedBy(client);
        if (parsed[oldest] === undefined) continue;
        delete parsed[oldest]; // first: whatever happens next, the driver prepares it again if it comes back
        await client.query(`DEALLOCATE "${oldest}"`);
      }
    }
    const result = await client.query<T>({ name, text, values });
    if (parsedBy(client)[name] !== undefined) kept.set(name, true); // most recently used now
    return result.rows;
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
export class TenantTransaction {
  private readonly prepared: PreparedStatements;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cls: ClsService,
    config: AppConfig,
  ) {
    this.prepared = new PreparedStatements(config.database.maxPreparedStatements);
  }

  async run<T>(companyId: string, work: (sql: TenantSql) => Promise<T>): Promise<T> {
    if (!/^\d+$/.test(companyId)) throw new Error('tenant transaction needs an internal company id');
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    try {
      // One round trip: the id is a validated integer, so it is inlined, not interpolated text.
      // Generic plans, always: left to choose, PostgreSQL kept planning the list query for
      // every request (4 ms, against 0.05 ms for the cached plan of the same shape), because
      // the generic plan's estimates looked costlier. Statements keep their values in
      // parameters except the page size (see limitClause), so a generic plan is the plan.
      await client.query(
        `BEGIN READ ONLY; SELECT set_config('app.company_id', '${companyId}', true), set_config('plan_cache_mode', 'force_generic_plan', true)`,
      );
      const sql = new TenantSql(client, this.prepared);
      const result = await this.cls.run({ ifNested: 'inherit' }, () => {
        this.cls.set(CTX.tenantSql, sql);
        return work(sql);
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Runs a statement in the current request's tenant transaction (outside one, a programming error). */
  query<T>(text: string, values: unknown[]): Promise<T[]> {
    const sql = this.cls.get<TenantSql | undefined>(CTX.tenantSql);
    if (!sql) throw new Error('no tenant transaction in this context');
    return sql.query<T>(text, values);
  }
}

/** Wraps every authenticated request's handler in its tenant transaction. */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly tenant: TenantTransaction,
    private readonly cls: ClsService,
  ) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const principal = this.cls.get<Principal | undefined>(CTX.principal);
    if (!principal) return next.handle();
    return from(this.tenant.run(principal.companyId, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
