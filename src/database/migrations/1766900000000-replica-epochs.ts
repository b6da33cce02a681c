import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on 2026-11-28 (rendered by
 * `npm run capture:render -- --migration ReplicaEpochs`): what changed since the capture before, in literal statements,
 * never edited again.
 *
 * What changed: app_live_change_epoch reads on a hot standby (#51). There the unlogged
 * `change_epoch_life` cannot be read (planning a read of it fails in recovery) and is not the
 * primary's anyway: the live epoch is the newest recorded one.
 */
export class ReplicaEpochs1766900000000 implements MigrationInterface {
  name = 'ReplicaEpochs1766900000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture: the statements the capture before did not hold word for word, and the drops of what it no longer has. */
const UP: string[] = [
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE plpgsql STABLE AS $$
  BEGIN
    IF pg_is_in_recovery() THEN
      RETURN (SELECT coalesce(max(e.epoch), 0) FROM change_epochs e);
    END IF;
    RETURN coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e));
  END $$`,
];

/** The capture before this migration: the statements of it that this one changed or dropped. */
const DOWN: string[] = [
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e))
  $$`,
];
