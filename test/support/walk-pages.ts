/** One page of a keyset list as a traversal sees it: its items, and the cursor of the next page (null on the last). */
export interface WalkedPage<T, C> {
  items: T[];
  next: C | null;
}

/** Past this many pages a traversal is taken for one that never ends (a cursor that does not advance). */
export const MAX_PAGES = 10_000;

/**
 * The one keyset traversal of the tests: calls `fetchPage` with no cursor, then with each
 * page's `next`, until a page has none. Whatever a page should satisfy (its size, its
 * pagination object) is checked by `fetchPage`; so is a change of data between pages (`index`
 * is the page's 0-based number). Answers every item in the order read, and the pages.
 */
export async function walkPages<T, C>(
  fetchPage: (cursor: C | null, index: number) => Promise<WalkedPage<T, C>>,
  maxPages = MAX_PAGES,
): Promise<{ items: T[]; pages: T[][] }> {
  const pages: T[][] = [];
  let cursor: C | null = null;
  do {
    if (pages.length >= maxPages) throw new Error(`the traversal did not end within ${maxPages} pages`);
    const page: WalkedPage<T, C> = await fetchPage(cursor, pages.length);
    pages.push(page.items);
    cursor = page.next ?? null;
  } while (cursor !== null);
  return { items: pages.flat(), pages };
}
