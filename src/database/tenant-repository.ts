import { ClsService, ClsServiceManager } from 'nestjs-cls';
import { DataSource, DeepPartial, EntityManager, EntityTarget, FindManyOptions, FindOptionsWhere } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { RequestStore } from '../common/http/request-context';

declare module '../common/http/request-context' {
  interface RequestStore {
    /** The company an admin operation acts for (actForCompany); an API request's is its principal's. */
    actingCompanyId?: string;
  }
}

/** A row of a tenant table. */
export interface TenantRow {
  companyId: string;
}

/** A filter on a tenant table: anything but the company, which the context gives. */
export type TenantWhere<E extends TenantRow> = Omit<FindOptionsWhere<E>, 'companyId'>;

/**
 * What `find` takes: no relations or joins, whose tables the company's condition would not reach
 * (entities declare foreign keys, not relations; a related table is read through its own repository).
 */
export type TenantFindOptions<E extends TenantRow> = Omit<FindManyOptions<E>, 'where' | 'relations' | 'relationLoadStrategy' | 'join'> & {
  where?: TenantWhere<E>;
};

/**
 * Runs `work` acting for one company: every TenantRepository used inside reads and writes that
 * company's rows only. One company per context: inside an operation already acting for another
 * company (or an API request of another company) it refuses, rather than mixing two tenants.
 */
export function actForCompany<T>(companyId: string, work: () => Promise<T>): Promise<T> {
  const cls = ClsServiceManager.getClsService<RequestStore>();
  const current = cls.isActive() ? companyOf(cls) : undefined;
  if (current !== undefined && current !== companyId) {
    return Promise.reject(new Error(`already acting for company ${current}; refusing to act for ${companyId} in the same context`));
  }
  return cls.run({ ifNested: 'inherit' }, () => {
    cls.set('actingCompanyId', companyId);
    return work();
  });
}

/** The company of the context: the authenticated caller's, or the one an admin operation acts for. */
function companyOf(cls: ClsService<RequestStore>): string | undefined {
  return cls.get('principal')?.companyId ?? cls.get('actingCompanyId');
}

/**
 * An entity's repository that takes the company from the request context (nestjs-cls), never from
 * a parameter a caller could forget or get wrong: every find, insert, update and delete carries
 * `company_id = <the context's company>`, and with no company in the context it throws before any
 * statement runs. For the paths that are not hot (admin commands); the API's reads are SQL
 * (README, Architecture), and row-level security stands behind both.
 */
export class TenantRepository<E extends TenantRow> {
  constructor(
    private readonly db: DataSource | EntityManager,
    private readonly entity: EntityTarget<E>,
    private readonly cls: ClsService<RequestStore> = ClsServiceManager.getClsService<RequestStore>(),
  ) {}

  /** The same repository on a transaction's manager. */
  in(manager: EntityManager): TenantRepository<E> {
    return new TenantRepository(manager, this.entity, this.cls);
  }

  /** The context's company; throws when there is none. */
  get companyId(): string {
    const companyId = this.cls.isActive() ? companyOf(this.cls) : undefined;
    if (companyId === undefined) throw new Error(`no company in this context: ${this.name} is read and written only acting for one`);
    return companyId;
  }

  /**
   * The company's rows that match. No query builder is offered: a `where()` on one replaces the
   * conditions before it, the company's among them. What finders cannot say is said with operators
   * (`In`, `Raw`); a lock is an option (`lock: { mode: 'pessimistic_write' }`, in a transaction).
   */
  async find(options: TenantFindOptions<E> = {}): Promise<E[]> {
    if (['relations', 'relationLoadStrategy', 'join'].some((option) => option in options)) {
      throw new Error(`${this.name}: relations are read through their own repository, where the company's condition reaches them`);
    }
    return this.manager.find(this.entity, { ...options, where: this.scoped(options.where) });
  }

  async findOne(where: TenantWhere<E>): Promise<E | null> {
    return this.manager.findOneBy(this.entity, this.scoped(where));
  }

  /** Inserts one row of the context's company and returns it as stored (generated columns read back). */
  async insert(values: Omit<DeepPartial<E>, 'companyId'>): Promise<E> {
    const row = { ...this.withoutCompany(values), companyId: this.companyId } as DeepPartial<E>;
    return this.manager.save(this.entity, this.manager.create(this.entity, row));
  }

  /**
   * Updates the context's company's rows that match; how many. A value may be SQL (`() => 'now()'`),
   * its values named parameters (`:grace`) given in `parameters`.
   */
  async update(
    where: TenantWhere<E>,
    values: Omit<QueryDeepPartialEntity<E>, 'companyId'>,
    parameters: Record<string, unknown> = {},
  ): Promise<number> {
    const result = await this.manager
      .createQueryBuilder()
      .update(this.entity)
      .set(this.withoutCompany(values) as QueryDeepPartialEntity<E>)
      .where(this.scoped(where))
      .setParameters(parameters)
      .execute();
    return result.affected ?? 0;
  }

  async delete(where: TenantWhere<E>): Promise<number> {
    return (await this.manager.delete(this.entity, this.scoped(where))).affected ?? 0;
  }

  private get manager(): EntityManager {
    return this.db instanceof DataSource ? this.db.manager : this.db;
  }

  private get name(): string {
    return this.manager.getRepository(this.entity).metadata.tableName;
  }

  private scoped(where: TenantWhere<E> = {} as TenantWhere<E>): FindOptionsWhere<E> {
    return { ...this.withoutCompany(where), companyId: this.companyId } as FindOptionsWhere<E>;
  }

  /** A company named by the caller is refused, not overridden: it is a bug to fix, not a value to correct. */
  private withoutCompany<V extends object>(values: V): V {
    if ('companyId' in values) throw new Error(`${this.name}: the company comes from the context, not from the caller`);
    return values;
  }
}
