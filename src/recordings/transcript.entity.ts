import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Recording } from './recording.entity';
import { TranscriptVariant } from './recording.vocabulary';

/** A recording's transcript, in one variant. */
@Check('transcripts_variant_check', `(variant = ANY (ARRAY['original'::text, 'enhanced'::text]))`)
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'transcripts_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'transcripts' })
export class Transcript {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'transcripts_pkey' })
  recordingId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'transcripts_pkey' })
  variant: TranscriptVariant;

  @Column({ type: 'jsonb' })
  utterances: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
