/** A page of a list as the API answers it: its items, where it stands, and the request's id. */
export interface Page<T> {
  data: T[];
  pagination: { limit: number; has_more: boolean; next_cursor: string | null };
  request_id: string;
}

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

  /** Every item in one array (for small lists: memory grows with the list). */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
