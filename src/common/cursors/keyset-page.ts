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
