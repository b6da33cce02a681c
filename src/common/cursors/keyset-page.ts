import { ApiError } from '../errors/api-error';
import { CursorBinding, CursorCodec, KeysetPosition } from './cursor-codec';

export interface Pagination {
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
}

/** A page of a list route; the envelope interceptor turns it into `{data, pagination, request_id}`. */
export class Page<T> {
  constructor(
    readonly data: T[],
    readonly pagination: Pagination,
  ) {}
}

/** A list answered whole, without pagination: `{data, request_id}`. */
export class Collection<T> {
  constructor(readonly data: T[]) {}
}

/**
 * Builds a page from `limit + 1` rows fetched in keyset order: the extra row only says that
 * another page exists, and the cursor seals the position of the last row returned.
 */
export function keysetPage<Row, T>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => KeysetPosition,
  present: (rows: Row[]) => T[],
  codec: CursorCodec,
  binding: CursorBinding,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return new Page(present(pageRows), {
    limit,
    has_more: hasMore,
    next_cursor: hasMore && last ? codec.seal(binding, positionOf(last)) : null,
  });
}

/** Keyset position of a row ordered by `(timestamp, id)`: microseconds since the epoch, and the internal id. */
export type TimeIdPosition = [micros: string, id: string];

/**
 * The `(timestamp, id)` position sealed in `cursor`, or null without one. A cursor is
 * authenticated, so its position is ours; its shape is still checked before it reaches SQL.
 */
export function openTimeIdCursor(codec: CursorCodec, cursor: string | undefined, binding: CursorBinding): TimeIdPosition | null {
  if (cursor === undefined) return null;
  const position = codec.open(cursor, binding);
  const [t, id] = position;
  if (position.length !== 2 || !/^-?\d{1,20}$/.test(String(t)) || !/^\d{1,19}$/.test(String(id))) {
    throw new ApiError('INVALID_CURSOR', 'The cursor is not valid for this request.');
  }
  return [String(t), String(id)];
}
