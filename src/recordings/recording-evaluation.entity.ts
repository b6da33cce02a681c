import { Check, Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Recording } from './recording.entity';
import { EvaluationStatus } from './recording.vocabulary';

/** A recording's evaluation (at most one per recording). */
@Check('recording_evaluations_check', `((status = 'completed'::text) OR (score IS NULL))`)
@Check(
  'recording_evaluations_status_check',
  `(status = ANY (ARRAY['not_started'::text, 'processing'::text, 'completed'::text, 'failed'::text]))`,
)
@Unique('recording_evaluations_public_id_key', ['publicId'])
@Unique('recording_evaluations_recording_id_key', ['recordingId'])
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_evaluations_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'recording_evaluations' })
export class RecordingEvaluation {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    primaryKeyConstraintName: 'recording_evaluations_pkey',
    generatedIdentity: 'ALWAYS',
  })
  id: string;

  @Column({ name: 'public_id', type: 'text' })
  publicId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'recording_id', type: 'bigint' })
  recordingId: string;

  @Column({ type: 'text' })
  status: EvaluationStatus;

  @Column({ type: 'integer', nullable: true })
  score: number | null;

  @Column({ type: 'text', nullable: true })
  justification: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
