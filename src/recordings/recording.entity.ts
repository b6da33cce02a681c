import { Check, Column, ForeignKey, Index } from 'typeorm';
import { CompanyRecord, CompanyRecordTable } from '../companies/company-record';
import { Template } from './template.entity';
import { User } from '../companies/user.entity';
import { Audience, MediaType, RecordingKind, RecordingStatus, TranscriptStatus } from './recording.vocabulary';

/** A meeting or a call (`kind`): one table, one implementation. */
@Check('recordings_audience_check', `(audience = ANY (ARRAY['internal'::text, 'external'::text]))`)
@Check('recordings_audience_matches_participants', `((audience = 'external'::text) = (jsonb_array_length(participants) > 0))`)
@Check('recordings_check', `((kind = 'meeting'::text) = (bot_history IS NOT NULL))`)
@Check('recordings_duration_seconds_check', '(duration_seconds >= 0)')
@Check('recordings_kind_check', `(kind = ANY (ARRAY['meeting'::text, 'call'::text]))`)
@Check('recordings_media_type_check', `(media_type = ANY (ARRAY['video'::text, 'audio'::text]))`)
@Check(
  'recordings_public_id_kind',
  `starts_with(public_id,
CASE kind
    WHEN 'meeting'::text THEN 'mtg_'::text
    ELSE 'call_'::text
END)`,
)
@Check('recordings_status_check', `(status = 'completed'::text)`)
@Check(
  'recordings_transcript_status_check',
  `(transcript_status = ANY (ARRAY['not_started'::text, 'processing'::text, 'completed'::text, 'failed'::text]))`,
)
@ForeignKey(() => User, ['companyId', 'ownerId'], ['companyId', 'id'], { name: 'recordings_company_id_owner_id_fkey' })
@ForeignKey(() => Template, ['companyId', 'templateId'], ['companyId', 'id'], { name: 'recordings_company_id_template_id_fkey' })
@Index('recordings_audience_idx', ['companyId', 'kind', 'audience', 'createdAt', 'id'])
// (company_id, kind, public_id COLLATE "C"): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('recordings_export', { synchronize: false })
// (company_id, kind, created_at, id) INCLUDE (meeting_at): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('recordings_list_idx', { synchronize: false })
@Index('recordings_media_idx', ['companyId', 'kind', 'mediaType', 'createdAt', 'id'])
@Index('recordings_owner_idx', ['companyId', 'kind', 'ownerId', 'createdAt', 'id'])
// (company_id, kind, ((transcript_status = 'completed'::text)), created_at, id): an index TypeORM cannot describe, so it leaves it to the migration.
@Index('recordings_transcript_idx', { synchronize: false })
@CompanyRecordTable('recordings')
export class Recording extends CompanyRecord {
  @Column({ type: 'text' })
  kind: RecordingKind;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', default: 'completed' })
  status: RecordingStatus;

  @Column({ name: 'media_type', type: 'text' })
  mediaType: MediaType;

  @Column({ type: 'text' })
  audience: Audience;

  @Column({ name: 'meeting_at', type: 'timestamptz' })
  meetingAt: Date;

  @Column({ name: 'duration_seconds', type: 'integer' })
  durationSeconds: number;

  @Column({ name: 'no_show', type: 'boolean', default: false })
  noShow: boolean;

  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @Column({ name: 'template_id', type: 'bigint', nullable: true })
  templateId: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  participants: unknown;

  @Column({ name: 'customer_questions', type: 'jsonb', default: () => "'[]'" })
  customerQuestions: unknown;

  @Column({ name: 'bot_history', type: 'jsonb', nullable: true })
  botHistory: unknown | null;

  @Column({ name: 'transcript_status', type: 'text', default: 'not_started' })
  transcriptStatus: TranscriptStatus;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
