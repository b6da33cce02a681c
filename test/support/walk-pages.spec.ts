import { walkPages, WalkedPage } from './walk-pages';

/** Pages of `items`, `size` at a time, the cursor being the index of the next item. */
const pagesOf =
  <T>(items: T[], size: number) =>
  async (cursor: number | null): Promise<WalkedPage<T, number>> => {
    const from = cursor ?? 0;
    return { items: items.slice(from, from + size), next: from + size < items.length ? from + size : null };
  };

describe('walkPages', () => {
  it('follows each page to the next until a page has no cursor, and answers every item in order and the pages', async () => {
    const calls: Array<[number | null, number]> = [];
    const fetch = pagesOf(['a', 'b', 'c', 'd', 'e'], 2);
    const { items, pages } = await walkPages<string, number>((cursor, index) => {
      calls.push([cursor, index]);
      return fetch(cursor);
    });
    expect(items).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(calls).toEqual([
      [null, 0],
      [2, 1],
      [4, 2],
    ]);
  });

  it('reads one page of a list that fits in it, and an empty list as one empty page', async () => {
    expect(await walkPages(pagesOf([1, 2], 5))).toEqual({ items: [1, 2], pages: [[1, 2]] });
    expect(await walkPages(pagesOf([], 5))).toEqual({ items: [], pages: [[]] });
  });

  it('fails, rather than hanging, on a list whose cursor never ends', async () => {
    const endless = async (cursor: number | null) => ({ items: [cursor], next: 0 });
    await expect(walkPages(endless, 50)).rejects.toThrow('the traversal did not end within 50 pages');
  });

  it('stops at the first failing page', async () => {
    let fetched = 0;
    const failing = async (cursor: number | null) => {
      fetched++;
      if (cursor === 1) throw new Error('page 2 failed');
      return { items: [cursor], next: (cursor ?? 0) + 1 };
    };
    await expect(walkPages(failing)).rejects.toThrow('page 2 failed');
    expect(fetched).toBe(2);
  });
});
