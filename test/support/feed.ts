import request from 'supertest';

/** One entry of `GET /v1/changes` as the API returns it. */
export interface ChangeEntry {
  id: string;
  object: string;
  object_id: string;
  parent_id: string | null;
  action: 'created' | 'updated' | 'deleted';
  changed: string[];
  committed_at: string;
}

/**
 * A client of the change feed, as an integrator writes one: it polls from its stored cursor,
 * follows `has_more` at once, and keeps the last `next_cursor`.
 */
export class FeedReader {
  cursor: string | undefined;
  readonly seen: ChangeEntry[] = [];

  constructor(
    private readonly http: () => ReturnType<typeof request>,
    private readonly token: string,
    private readonly query = '',
  ) {}

  /** Every entry available now (pages until `has_more` is false); remembers the cursor. */
  async poll(limit = 100): Promise<ChangeEntry[]> {
    const got: ChangeEntry[] = [];
    for (let page = 0; page < 10_000; page++) {
      const params = [this.query, `limit=${limit}`, this.cursor ? `cursor=${this.cursor}` : ''].filter(Boolean).join('&');
      const res = await this.http().get(`/v1/changes?${params}`).set('Authorization', `Bearer ${this.token}`);
      if (res.status !== 200) throw new Error(`GET /v1/changes: ${res.status} ${JSON.stringify(res.body)}`);
      expect(res.body.pagination.next_cursor).toMatch(/^cur_/);
      got.push(...res.body.data);
      this.cursor = res.body.pagination.next_cursor;
      if (!res.body.pagination.has_more) break;
    }
    this.seen.push(...got);
    return got;
  }
}

/** The object ids of `entries` that are of `object`. */
export const idsOf = (entries: ChangeEntry[], object?: string) =>
  entries.filter((e) => object === undefined || e.object === object).map((e) => e.object_id);
