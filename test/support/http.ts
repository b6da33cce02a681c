import request from 'supertest';
import { walkPages } from './walk-pages';

/** A `/v1` error: its status, its code, the request id of the header, and no caching. */
export function expectError(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['cache-control']).toBe('no-store');
}

/** A record of a list as the API returned it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ListedRecord = Record<string, any>;

/**
 * Every item of a keyset list, following `next_cursor` until `has_more` is false, with the
 * page size cycling through `limits` (walkPages over the HTTP list). Checks each page's
 * pagination object on the way; `between(page)` runs after each page (to change data mid-traversal).
 */
export async function traverse(
  fetch: (url: string) => request.Test,
  url: string,
  limits: number[],
  between: (page: number) => Promise<void> = async () => undefined,
): Promise<{ ids: string[]; pages: number; records: ListedRecord[] }> {
  const { items: records, pages } = await walkPages<ListedRecord, string>(async (cursor, page) => {
    const limit = limits[page % limits.length];
    const sep = url.includes('?') ? '&' : '?';
    const res: request.Response = await fetch(`${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    expect(res.body.pagination.limit).toBe(limit);
    expect(res.body.pagination.next_cursor === null).toBe(!res.body.pagination.has_more);
    await between(page);
    return { items: res.body.data, next: res.body.pagination.next_cursor };
  });
  return { ids: records.map((r) => r.id as string), pages: pages.length, records };
}
