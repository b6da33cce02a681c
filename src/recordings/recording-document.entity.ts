import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A recording's stored JSON text (the read model): emptied by the change capture, written by the refresher. */
@Check('recording_documents_check', '((format IS NULL) = (document IS NULL))')
@Index('recording_documents_empty', ['recordingId'], { where: '(document IS NULL)' })
@Index('recording_documents_format', ['format', 'recordingId'])
@Entity({ name: 'recording_documents' })
export class RecordingDocument {
  @PrimaryColumn({ name: 'recording_id', type: 'bigint', primaryKeyConstraintName: 'recording_documents_pkey' })
  recordingId: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ type: 'integer', nullable: true })
  format: number | null;

  @Column({ type: 'text', nullable: true })
  document: string | null;

  @Column({ type: 'text', nullable: true })
  evaluation: string | null;

  @Column({ type: 'text', nullable: true })
  answers: string | null;

  @Column({ type: 'text', nullable: true })
  transcript: string | null;
}
