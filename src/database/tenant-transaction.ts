import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import { from, lastValueFrom, Observable } from 'rxjs';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { CTX, Principal } from '../common/http/request-context';

/**
 * Runs a unit of work in one READ ONLY transaction whose `app.company_id` is the tenant, so
 * row-level security hides every other company's rows even from a query that forgets its
 * company filter. The setting is transaction-local: it cannot leak to the next user of the
 * pooled connection.
 */
@Injectable()
export class TenantTransaction {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cls: ClsService,
  ) {}

  async run<T>(companyId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!/^\d+$/.test(companyId)) throw new Error('tenant transaction needs an internal company id');
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      // One round trip: the id is a validated integer, so it is inlined, not interpolated text.
      await runner.query(`BEGIN READ ONLY; SELECT set_config('app.company_id', '${companyId}', true)`);
      const result = await this.cls.run({ ifNested: 'inherit' }, () => {
        this.cls.set(CTX.tenantManager, runner.manager);
        return work(runner.manager);
      });
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The current request's tenant manager; a repository used outside one is a programming error. */
  get manager(): EntityManager {
    const manager = this.cls.get<EntityManager | undefined>(CTX.tenantManager);
    if (!manager) throw new Error('no tenant transaction in this context');
    return manager;
  }

  /**
   * The first wall: a query builder over `entity` already filtered to the request's
   * company. Repositories start every tenant query here; row-level security is the second wall.
   */
  scoped<T extends ObjectLiteral>(entity: EntityTarget<T>, alias: string, companyColumn = 'company_id'): SelectQueryBuilder<T> {
    const principal = this.cls.get<Principal | undefined>(CTX.principal);
    if (!principal) throw new Error('no principal in this context');
    return this.manager
      .createQueryBuilder(entity, alias)
      .where(`${alias}.${companyColumn} = :tenantCompanyId`, { tenantCompanyId: principal.companyId });
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
