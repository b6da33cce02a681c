import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Competitor } from './competitor.entity';
import { Recording } from './recording.entity';

/** A competitor mentioned in a recording. */
@ForeignKey(() => Competitor, ['companyId', 'competitorId'], ['companyId', 'id'], {
  name: 'recording_competitors_company_id_competitor_id_fkey',
})
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_competitors_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'recording_competitors' })
export class RecordingCompetitor {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_competitors_pkey' })
  recordingId: string;

  @PrimaryColumn({ name: 'competitor_id', type: 'bigint', primaryKeyConstraintName: 'recording_competitors_pkey' })
  competitorId: string;
}
