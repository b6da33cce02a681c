import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A record's id starts with its kind's prefix (`mtg_` for a meeting, `call_` for a call), checked
 * by the database. A meeting made a call that kept its `mtg_` id was captured (`created` as a
 * call) but could not be served: the calls routes take `call_` ids only, and the calls list would
 * have named an id of the wrong kind (found by the interleaving machine, #47). A change of kind
 * now comes with an id of the new kind, or is refused (`23514`).
 *
 * Validated in the migration (a scan of `recordings` under its lock; every record the service
 * and its seeders wrote already conforms).
 */
export class RecordingIdsByKind1766600000002 implements MigrationInterface {
  name = 'RecordingIdsByKind1766600000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE recordings ADD CONSTRAINT recordings_public_id_kind
         CHECK (starts_with(public_id, CASE kind WHEN 'meeting' THEN 'mtg_' ELSE 'call_' END))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recordings DROP CONSTRAINT recordings_public_id_kind');
  }
}
