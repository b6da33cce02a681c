import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Horizon marks (`change_horizons`): at `marked_at`, every transaction below `horizon` had
 * finished. They turn an instant into a feed position that loses nothing: `webhooks:replay
 * --from <date-time>` reads from the horizon of the latest mark at or before the instant, instead
 * of filtering entries by `committed_at` (the writing transaction's start), which missed a
 * transaction that started before the instant and committed after it. Not tenant data: no
 * company, no row-level security; the API role reads it and marks through the function.
 *
 * The function's text was rendered by `npm run capture:render -- --migration ChangeHorizons`
 * from src/changes/capture-sql.ts: literal statements, never edited again.
 */
export class ChangeHorizons1765400000000 implements MigrationInterface {
  name = 'ChangeHorizons1765400000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** The table, and today's capture (what changed since the migration before). */
const UP: string[] = [
  `CREATE TABLE change_horizons (
    marked_at timestamptz PRIMARY KEY,
    horizon xid8 NOT NULL
  )`,
  `CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    -- The snapshot is taken before clock_timestamp() is read: the mark never claims more than it knows.
    INSERT INTO change_horizons (marked_at, horizon) VALUES (clock_timestamp(), pg_snapshot_xmin(pg_current_snapshot()))
      ON CONFLICT (marked_at) DO NOTHING;
    DELETE FROM change_horizons h
      WHERE h.marked_at < clock_timestamp() - interval '1 day'
        AND EXISTS (SELECT 1 FROM change_horizons k
                    WHERE k.marked_at >= date_trunc('hour', h.marked_at) AND k.marked_at < h.marked_at);
  END $$`,
  `REVOKE ALL ON FUNCTION app_mark_change_horizon() FROM PUBLIC`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `DROP FUNCTION app_mark_change_horizon()`,
  `DROP TABLE change_horizons`,
];
