import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { IdKind, mintId } from '../common/ids/public-id';

export interface Ref {
  id: string;
  publicId: string;
}

/** A short random token for names, addresses and phone numbers that must not collide. */
export const token = () => randomBytes(4).toString('hex');

/**
 * Base of the test-data factories: writes one company's rows as the schema owner (which
 * row-level security lets through), minting public ids.
 */
export abstract class TenantFactory {
  constructor(
    protected readonly db: DataSource | EntityManager,
    protected readonly companyId: string,
  ) {}

  /** Inserts a row with a new public id of `kind`; `values` never carries the company. */
  protected async insert(table: string, kind: IdKind, values: Record<string, unknown>): Promise<Ref> {
    const publicId = mintId(kind);
    const columns = ['public_id', 'company_id', ...Object.keys(values)];
    const params = [publicId, this.companyId, ...Object.values(values)];
    const [row] = await this.db.query(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      params,
    );
    return { id: String(row.id), publicId };
  }

  /** Links `ownerId` to each of `refs` in a two-column link table. */
  protected async link(table: string, ownerColumn: string, ownerId: string, column: string, refs: Ref[] | undefined): Promise<void> {
    for (const ref of refs ?? []) {
      await this.db.query(`INSERT INTO ${table} (company_id, ${ownerColumn}, ${column}) VALUES ($1, $2, $3)`, [
        this.companyId,
        ownerId,
        ref.id,
      ]);
    }
  }
}
