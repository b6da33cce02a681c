import type { Pagination } from './types.js';

/** A page of a list as the API answers it: its items, where it stands, and the request's id. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
  request_id: string;
}

/** The largest `limit` of `toArray`: beyond it, iterate (memory grows with the array). */
const TO_ARRAY_MAX = 10_000;

/**
 * A list route: `for await (const item of list)` walks every item of every page, in order;
 * `list.pages()` yields page by page (with its cursor, for page-level control or to store where
 * you are). Nothing is requested until you iterate, and each page only when the previous one was
 * consumed. A page may hold fewer items than `limit` asked: only `has_more: false` ends a list.
 */
export class PageIterable<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<P>) {}

  async *pages(): AsyncGenerator<P, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.pagination.has_more || !page.pagination.next_cursor) return;
      cursor = page.pagination.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first page only. */
  firstPage(): Promise<P> {
    return this.fetchPage(undefined);
  }

  /**
   * The first `limit` items in one array (1 to 10,000; a TypeError otherwise): no page is requested
   * once it is full. Without `limit`, every item of the list (memory grows with it: for small lists
   * only, as `toArray()` always did); with more to read, iterate instead.
   *
   * ```ts
   * const latest = await api.meetings.list({ limit: 100 }).toArray({ limit: 500 });
   * ```
   */
  async toArray(options: { limit?: number } = {}): Promise<T[]> {
    const { limit } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= TO_ARRAY_MAX))
      throw new TypeError(`toArray: limit must be an integer from 1 to ${TO_ARRAY_MAX} (iterate for more), not ${limit}`);
    const items: T[] = [];
    for await (const item of this) {
      items.push(item);
      if (items.length === limit) break;
    }
    return items;
  }
}
