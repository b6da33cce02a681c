import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `audience` says whether people from outside the company took part, and `participants` lists
 * exactly those outside participants (the spec lists `external` as their only kind). So a record
 * is external exactly when it lists a participant, and a CHECK makes every writer agree (demo
 * data once said `internal` beside external participants). Rows written before are put right
 * first: their participants are the facts, the audience is derived from them.
 */
export class AudienceFromParticipants1764500000000 implements MigrationInterface {
  name = 'AudienceFromParticipants1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE recordings SET audience = CASE WHEN jsonb_array_length(participants) > 0 THEN 'external' ELSE 'internal' END
      WHERE audience <> CASE WHEN jsonb_array_length(participants) > 0 THEN 'external' ELSE 'internal' END`);
    await q.query(`
      ALTER TABLE recordings ADD CONSTRAINT recordings_audience_matches_participants
        CHECK ((audience = 'external') = (jsonb_array_length(participants) > 0))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE recordings DROP CONSTRAINT recordings_audience_matches_participants');
  }
}
