import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Recording } from './recording.entity';
import { User } from '../companies/user.entity';

/** How long one user spoke in a recording. */
@Check('recording_speaking_durations_duration_seconds_check', '(duration_seconds >= 0)')
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_speaking_durations_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@ForeignKey(() => User, ['companyId', 'userId'], ['companyId', 'id'], { name: 'recording_speaking_durations_company_id_user_id_fkey' })
@Entity({ name: 'recording_speaking_durations' })
export class RecordingSpeakingDuration {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_speaking_durations_pkey' })
  recordingId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: 'recording_speaking_durations_pkey' })
  userId: string;

  @Column({ name: 'duration_seconds', type: 'integer' })
  durationSeconds: number;
}
