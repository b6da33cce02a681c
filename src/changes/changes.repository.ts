import { Injectable } from '@nestjs/common';
import { iso, limitClause } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import { ChangeAction, ChangedPart, ChangeObject } from './change.vocabulary';

/** A position in the feed: the writing transaction's id and the entry's sequence number (decimal text). */
export type FeedPosition = [xid: string, seq: string];

/** Negative, zero or positive as `a` lies before, at or after `b` in the feed. */
export function comparePositions(a: FeedPosition, b: FeedPosition): number {
  const [ax, as, bx, bs] = [BigInt(a[0]), BigInt(a[1]), BigInt(b[0]), BigInt(b[1])];
  if (ax !== bx) return ax < bx ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/**
 * The position from which reading yields every change committed after `instant`, at least once:
 * the horizon of the latest mark at or before it (app_mark_change_horizon), or the beginning.
 * Not a filter on `committed_at`, which is when the writing transaction began: one that began
 * before the instant and committed after it would be lost.
 */
export async function positionAt(
  query: (sql: string, params: unknown[]) => Promise<Array<{ horizon: string }>>,
  instant: string,
): Promise<FeedPosition> {
  const [mark] = await query(
    'SELECT horizon::text AS horizon FROM change_horizons WHERE marked_at <= $1::timestamptz ORDER BY marked_at DESC LIMIT 1',
    [instant],
  );
  return mark ? [mark.horizon, '0'] : ['0', '0'];
}

export interface ChangeRow {
  public_id: string;
  object: ChangeObject;
  object_id: string;
  parent_id: string | null;
  action: ChangeAction;
  changed: ChangedPart[];
  committed_at: string;
  xid: string;
  seq: string;
}

/** A page of the feed and the horizon it was read below. */
export interface FeedRead {
  rows: ChangeRow[];
  /** `pg_snapshot_xmin` of the read: every transaction below it had finished, none at or above it was served. */
  horizon: string;
}

/**
 * Reads of the change log in one statement inside the tenant transaction: entries after a
 * position, of the given types, below the horizon (the oldest transaction still running when
 * the statement began), in `(xid, seq)` order, walking the primary key from the position.
 */
@Injectable()
export class ChangesRepository {
  constructor(private readonly tenant: TenantTransaction) {}

  async page(companyId: string, types: readonly ChangeObject[], after: FeedPosition, take: number): Promise<FeedRead> {
    const rows = await this.tenant.query<ChangeRow & { horizon: string }>(
      `SELECT h.horizon::text AS horizon, c.*
       FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h
       LEFT JOIN LATERAL (
         SELECT c.public_id, c.object, c.object_id, c.parent_id, c.action, c.changed, ${iso('c.committed_at')} AS committed_at,
           c.xid::text AS xid, c.seq::text AS seq
         FROM change_log c
         WHERE c.company_id = $1 AND (c.xid, c.seq) > ($2::xid8, $3::bigint) AND c.xid < h.horizon AND c.object = ANY ($4::text[])
         ORDER BY c.xid, c.seq ${limitClause(take)}
       ) c ON true`,
      [companyId, after[0], after[1], types],
    );
    const horizon = rows[0].horizon;
    return { horizon, rows: rows.filter((r) => r.public_id !== null).slice(0, take) };
  }

  /** The head of the feed: the position before every entry not yet served. */
  async head(): Promise<FeedPosition> {
    const [{ horizon }] = await this.tenant.query<{ horizon: string }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon',
      [],
    );
    return [horizon, '0'];
  }
}
