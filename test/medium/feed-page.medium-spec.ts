import { DataSource } from 'typeorm';
import { CHANGE_OBJECTS, ChangeObject } from '../../src/changes/change.vocabulary';
import { FeedPosition, pageStatement } from '../../src/changes/changes.repository';
import { Company } from '../../src/companies/company.entity';
import { createCompany } from '../support/factories';
import { apiDataSource, ownerDataSource } from '../support/test-app';

/**
 * The work of one feed page is bounded by the page, whatever the mix of types in the log: a
 * page of a sparse type reads its own entries, not every entry of the others after the cursor
 * (before, `types=meeting` over a million chat-message entries read all of them to return 35).
 */
describe('a page of the change feed', () => {
  const ENTRIES = 30_000;
  const EVERY = 5_000; // one meeting in 5,000 entries, chat messages otherwise
  let owner: DataSource;
  let api: DataSource;
  let company: Company;

  beforeAll(async () => {
    [owner, api] = await Promise.all([ownerDataSource(), apiDataSource()]);
    company = await createCompany(owner);
    const [{ live, horizon }] = await owner.query(
      `SELECT app_live_change_epoch() AS live, pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`,
    );
    await owner.query(
      `INSERT INTO change_log (company_id, epoch, xid, object, object_id, object_key, parent_id, action, changed)
       SELECT $1, $2, (3 + (n * ($3::bigint - 4)) / $4)::text::xid8, CASE WHEN n % $5 = 0 THEN 'meeting' ELSE 'chat_message' END,
         'obj_' || n, n, CASE WHEN n % $5 = 0 THEN NULL ELSE 'wa_page' END, 'created', '{}'
       FROM generate_series(1, $4) n`,
      [company.id, live, horizon, ENTRIES, EVERY],
    );
  });

  afterAll(() => Promise.all([owner.destroy(), api.destroy()]));

  /** The page's rows, and the index entries its plan read from the log (EXPLAIN ANALYZE, as the API role). */
  async function read(types: readonly ChangeObject[], after: FeedPosition) {
    return api.transaction(async (m) => {
      await m.query(`SELECT set_config('app.company_id', $1, true)`, [company.id]);
      const params = [company.id, ...after, types];
      const rows: Array<{ public_id: string | null; object: string }> = await m.query(pageStatement(101), params);
      const [{ 'QUERY PLAN': plan }] = await m.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${pageStatement(101)}`, params);
      let scanned = 0;
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'change_log') scanned += (node['Actual Rows'] as number) * ((node['Actual Loops'] as number) || 1);
        for (const child of (node.Plans as Array<Record<string, unknown>>) ?? []) walk(child);
      };
      walk(plan[0].Plan);
      return { rows: rows.filter((r) => r.public_id !== null), scanned };
    });
  }

  it('of a sparse type reads its own entries only, from the beginning and deep in the log', async () => {
    const sparse = await read(['meeting'], ['0', '0', '0']);
    expect(sparse.rows).toHaveLength(ENTRIES / EVERY);
    expect(sparse.rows.every((r) => r.object === 'meeting')).toBe(true);
    expect(sparse.scanned).toBeLessThanOrEqual(2 * 101);
    const [deep] = await owner.query(`SELECT epoch::text, xid::text, seq::text FROM change_log WHERE company_id = $1 AND object_key = $2`, [
      company.id,
      ENTRIES / 2,
    ]);
    const deeper = await read(['meeting'], [deep.epoch, deep.xid, deep.seq]);
    expect(deeper.rows).toHaveLength(ENTRIES / EVERY / 2);
    expect(deeper.scanned).toBeLessThanOrEqual(2 * 101);
  });

  it('of every type reads about a page, merged from the types in order', async () => {
    const all = await read(CHANGE_OBJECTS, ['0', '0', '0']);
    expect(all.rows).toHaveLength(101);
    expect(all.scanned).toBeLessThanOrEqual(CHANGE_OBJECTS.length * 101);
  });
});
