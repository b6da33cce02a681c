import { INestApplicationContext } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { TimeIdPosition } from '../../src/common/cursors/keyset-page';
import { TenantTransaction } from '../../src/database/tenant-transaction';
import { walkPages } from './walk-pages';

/**
 * Runs `work` the way a request of the company runs its repository calls: in a CLS context,
 * inside the company's read-only tenant transaction (TenantTransactionInterceptor does the same).
 */
export function asTenant<T>(app: INestApplicationContext, companyId: string, work: () => Promise<T>): Promise<T> {
  return app.get(ClsService).run(() => app.get(TenantTransaction).run(companyId, () => work()));
}

/** `a` before `b` in keyset order: time (microseconds), then id, both integers compared exactly. */
export function comparePositions(a: TimeIdPosition, b: TimeIdPosition): number {
  const [ta, tb, ia, ib] = [BigInt(a[0]), BigInt(b[0]), BigInt(a[1]), BigInt(b[1])];
  return ta !== tb ? (ta < tb ? -1 : 1) : ia === ib ? 0 : ia < ib ? -1 : 1;
}

/**
 * A repository's keyset list read page after page as its service reads it: `limit + 1` rows
 * asked (the extra one only says that another page exists), `limit` kept, the position of the
 * last one kept as the next page's `after`. The page size cycles through `limits`; each page is
 * read by `read`, which runs it in its own tenant transaction as a request would. Every page
 * must hold at most `limit + 1` rows and none may be empty.
 */
export function walkRepository<R>(
  read: (after: TimeIdPosition | null, take: number) => Promise<R[]>,
  positionOf: (row: R) => TimeIdPosition,
  limits: number[],
): Promise<{ items: R[]; pages: R[][] }> {
  return walkPages<R, TimeIdPosition>(async (after, index) => {
    const limit = limits[index % limits.length];
    const rows = await read(after, limit + 1);
    expect(rows.length).toBeLessThanOrEqual(limit + 1);
    const page = rows.slice(0, limit);
    if (after !== null) expect(page.length).toBeGreaterThan(0); // a cursor is handed out only when a row follows
    return { items: page, next: rows.length > limit ? positionOf(page[page.length - 1]) : null };
  });
}

/** Every position strictly after the one before it: no row read twice, the order kept across pages. */
export function expectStrictlyIncreasing(positions: TimeIdPosition[]): void {
  const backwards = positions.flatMap((p, i) => (i > 0 && comparePositions(positions[i - 1], p) >= 0 ? [[i, positions[i - 1], p]] : []));
  expect(backwards).toEqual([]);
}
