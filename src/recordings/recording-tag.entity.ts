import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Recording } from './recording.entity';
import { Tag } from './tag.entity';

/** A tag on a recording. */
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_tags_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@ForeignKey(() => Tag, ['companyId', 'tagId'], ['companyId', 'id'], { name: 'recording_tags_company_id_tag_id_fkey' })
@Entity({ name: 'recording_tags' })
export class RecordingTag {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_tags_pkey' })
  recordingId: string;

  @PrimaryColumn({ name: 'tag_id', type: 'bigint', primaryKeyConstraintName: 'recording_tags_pkey' })
  tagId: string;
}
