import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Readers' view of a life no writer has recorded yet: the lowest number it can get (the highest
 * recorded one plus one) instead of a number from the clock. Every recorded epoch is final then,
 * and a position handed out meanwhile lies before any entry of the new life whatever number its
 * first writer records, with no reliance on the clock never stepping back. (Writers still number
 * a new life at least the seconds since 2020.)
 *
 * Rendered by `npm run capture:render -- --migration ReaderEpochFloor` from
 * src/changes/capture-sql.ts: the literal statements, never edited again.
 */
export class ReaderEpochFloor1765700000000 implements MigrationInterface {
  name = 'ReaderEpochFloor1765700000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e))
  $$`,
];

/** The capture before this migration. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      greatest((SELECT coalesce(max(e.epoch), 0) FROM change_epochs e) + 1,
        floor(extract(epoch FROM statement_timestamp()) - 1577836800)::integer))
  $$`,
];
