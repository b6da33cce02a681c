import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Recording } from './recording.entity';

/** A recording's enablement summary. */
@Check(
  'recording_enablements_meeting_type_check',
  `(meeting_type = ANY (ARRAY['qualification'::text, 'negotiation'::text, 'proposal'::text, 'closing'::text, 'technical_meeting'::text, 'questions_clarifications'::text]))`,
)
@Check('recording_enablements_others_seconds_check', '(others_seconds >= 0)')
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_enablements_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'recording_enablements' })
export class RecordingEnablement {
  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_enablements_pkey' })
  recordingId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'next_steps', type: 'text', nullable: true })
  nextSteps: string | null;

  @Column({ name: 'meeting_type', type: 'text', nullable: true })
  meetingType: string | null;

  @Column({ name: 'others_seconds', type: 'integer', nullable: true })
  othersSeconds: number | null;
}
