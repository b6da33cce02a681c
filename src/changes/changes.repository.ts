import { Injectable } from '@nestjs/common';
import { iso, limitClause } from '../database/sql';
import { ReadReplicas } from '../database/read-replicas';
import { TenantTransaction } from '../database/tenant-transaction';
import { ChangeAction, ChangedPart, ChangeObject, CHANGE_OBJECTS } from './change.vocabulary';

/**
 * A position in the feed (decimal text): the epoch (one life of the server: see
 * app_change_epoch in capture-shared-functions.ts), the writing transaction's id, the entry's sequence number.
 */
export type FeedPosition = [epoch: string, xid: string, seq: string];

/** Before every entry. */
export const BEGINNING: FeedPosition = ['0', '0', '0'];

/** Negative, zero or positive as `a` lies before, at or after `b` in the feed. */
export function comparePositions(a: FeedPosition, b: FeedPosition): number {
  for (let i = 0; i < 3; i++) {
    const [x, y] = [BigInt(a[i]), BigInt(b[i])];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The horizon of a read, as a subquery to alias `h`: `live`, the epoch writers are in now, and
 * `horizon`, the oldest transaction still running. Every entry of an earlier epoch, and of this
 * one below the horizon, is final: its transaction has ended, none can still come before it.
 */
export const FEED_HORIZON = 'SELECT app_live_change_epoch() AS live, pg_snapshot_xmin(pg_current_snapshot()) AS horizon';

/**
 * FEED_HORIZON, but never past the position ($6 epoch, $7 xid) a page is capped at (with
 * standbys: ReadReplicas.settledHorizon).
 */
const CAPPED_HORIZON = `SELECT CASE WHEN (x.live, x.horizon) <= ($6::integer, $7::xid8) THEN x.live ELSE $6::integer END AS live,
    CASE WHEN (x.live, x.horizon) <= ($6::integer, $7::xid8) THEN x.horizon ELSE $7::xid8 END AS horizon
  FROM (${FEED_HORIZON}) x`;

/**
 * The feed's one condition: entries of `c` after the position `after` (three SQL expressions:
 * epoch, xid, seq) and below the horizon `h`. Both bounds are ranges of the primary key
 * `(company_id, object, epoch, xid, seq)` once the company and the object are fixed.
 */
export function feedWindow(c: string, after: readonly [string, string, string], h = 'h'): string {
  return `(${c}.epoch, ${c}.xid, ${c}.seq) > (${after.join(', ')}) AND (${c}.epoch, ${c}.xid) < (${h}.live, ${h}.horizon)`;
}

/**
 * Whether the company `company` has an entry of the types `types` (a text[] expression; NULL:
 * every type) after `after`, below the horizon `h`: one probe of the primary key per type (a
 * walk across the types would pass over every entry of the others).
 */
export function someEntry(company: string, types: string, after: readonly [string, string, string], h = 'h'): string {
  return `(${CHANGE_OBJECTS.map(
    (o) => `((${types}) IS NULL OR '${o}' = ANY (${types})) AND EXISTS (SELECT 1 FROM change_log l
      WHERE l.company_id = ${company} AND l.object = '${o}' AND ${feedWindow('l', after, h)})`,
  ).join('\n    OR ')})`;
}

/**
 * The position from which reading yields every change committed after `instant`, at least once:
 * the horizon of the latest mark at or before it (app_mark_change_horizon), or the beginning.
 * Not a filter on `committed_at`, which is when the writing transaction began: one that began
 * before the instant and committed after it would be lost.
 */
export async function positionAt(
  query: (sql: string, params: unknown[]) => Promise<Array<{ epoch: string; horizon: string }>>,
  instant: string,
): Promise<FeedPosition> {
  const [mark] = await query(
    'SELECT epoch::text AS epoch, horizon::text AS horizon FROM change_horizons WHERE marked_at <= $1::timestamptz ORDER BY marked_at DESC LIMIT 1',
    [instant],
  );
  return mark ? [mark.epoch, mark.horizon, '0'] : BEGINNING;
}

export interface ChangeRow {
  public_id: string;
  object: ChangeObject;
  object_id: string;
  parent_id: string | null;
  action: ChangeAction;
  changed: ChangedPart[];
  committed_at: string;
  epoch: string;
  xid: string;
  seq: string;
}

/** A page of the feed and the horizon it was read below. */
export interface FeedRead {
  rows: ChangeRow[];
  /** The position of the read's horizon: every entry before it that matched was final, none after it was served. */
  horizon: FeedPosition;
}

/** The columns of an entry as ChangeRow holds them. */
const ENTRY = `c.public_id, c.object, c.object_id, c.parent_id, c.action, c.changed, ${iso('c.committed_at')} AS committed_at,
  c.epoch::text AS epoch, c.xid::text AS xid, c.seq::text AS seq`;

/**
 * A page of the feed in one statement: per type asked, a range of the primary key from the
 * position to the horizon (at most `take` entries each), merged in feed order. The work is
 * bounded by the page, whatever the mix of types in the log and the state of its statistics.
 */
export const pageStatement = (take: number, capped = false) => `SELECT h.live::text AS live, h.horizon::text AS horizon, p.*
  FROM (${capped ? CAPPED_HORIZON : FEED_HORIZON}) h
  LEFT JOIN LATERAL (
    SELECT * FROM (
      ${CHANGE_OBJECTS.map(
        (o) => `(SELECT ${ENTRY} FROM change_log c
        WHERE '${o}' = ANY ($5::text[]) AND c.company_id = $1 AND c.object = '${o}' AND ${feedWindow('c', ['$2::integer', '$3::xid8', '$4::bigint'])}
        ORDER BY c.epoch, c.xid, c.seq ${limitClause(take)})`,
      ).join('\n      UNION ALL ')}
    ) u ORDER BY u.epoch::integer, u.xid::xid8, u.seq::bigint ${limitClause(take)}
  ) p ON true`;

/**
 * Reads of the change log in one statement inside the tenant transaction: entries after a
 * position, of the given types, below the horizon, in `(epoch, xid, seq)` order.
 */
@Injectable()
export class ChangesRepository {
  constructor(
    private readonly tenant: TenantTransaction,
    private readonly replicas: ReadReplicas,
  ) {
    replicas.followFeedHorizon(FEED_HORIZON);
  }

  /** A page; with standbys, never past the position that every standby read from has replayed (ReadReplicas.settledHorizon). */
  async page(companyId: string, types: readonly ChangeObject[], after: FeedPosition, take: number): Promise<FeedRead> {
    const cap = this.replicas.settledHorizon();
    const rows = await this.tenant.query<ChangeRow & { live: string; horizon: string }>(
      pageStatement(take, cap !== undefined),
      cap ? [companyId, ...after, types, cap[0], cap[1]] : [companyId, ...after, types],
    );
    const horizon: FeedPosition = [rows[0].live, rows[0].horizon, '0'];
    return { horizon, rows: rows.filter((r) => r.public_id !== null).slice(0, take) };
  }

  /** The head of the feed: the position before every entry not yet served. */
  async head(): Promise<FeedPosition> {
    const [{ live, horizon }] = await this.tenant.query<{ live: string; horizon: string }>(
      `SELECT live::text AS live, horizon::text AS horizon FROM (${FEED_HORIZON}) h`,
      [],
    );
    return [live, horizon, '0'];
  }
}
