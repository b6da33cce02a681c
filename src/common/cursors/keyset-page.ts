import { ApiError } from '../errors/api-error';
import { JsonText } from '../http/json-text';
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
 * another page exists, and the cursor seals the position of the last row returned. With
 * `maxBytes`, the page stops before the item that would take its items' JSON past it (always
 * keeping the first): `has_more` is then true and the cursor continues after the last item
 * served. `pagination.limit` still echoes the limit asked.
 */
export function keysetPage<Row, T>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => KeysetPosition,
  present: (rows: Row[]) => T[],
  codec: CursorCodec,
  binding: CursorBinding,
  maxBytes = Infinity,
): Page<T> {
  const fetched = rows.length > limit ? rows.slice(0, limit) : rows;
  const items = present(fetched);
  const served = withinBudget(items, maxBytes);
  // `present` may return a prefix of the rows (it stopped reading at the budget): those after it were not served either.
  const hasMore = rows.length > limit || served < fetched.length;
  const last = fetched[served - 1];
  return new Page(items.slice(0, served), {
    limit,
    has_more: hasMore,
    next_cursor: hasMore && last ? codec.seal(binding, positionOf(last)) : null,
  });
}

/** How many of `items`, from the first, fit in `maxBytes` of JSON (at least one). */
function withinBudget<T>(items: readonly T[], maxBytes: number): number {
  if (maxBytes === Infinity) return items.length;
  let bytes = 0;
  for (const [i, item] of items.entries()) {
    bytes += byteLength(item) + 1; // and its comma
    if (bytes > maxBytes && i > 0) return i;
  }
  return items.length;
}

/** An item's size in the body: its rendered text, or its JSON. */
export function byteLength(item: unknown): number {
  const text = item instanceof JsonText ? item.text : JSON.stringify(item);
  return Buffer.byteLength(text);
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
