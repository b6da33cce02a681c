import { Column, Entity, ForeignKey, Unique } from 'typeorm';
import { CompanyRecord } from '../companies/company-record';
import { Recording } from './recording.entity';
import { TemplateQuestion } from './template-question.entity';

/** A recording's answer to one template question. */
@Unique('recording_answers_public_id_key', ['publicId'])
@Unique('recording_answers_recording_id_question_id_key', ['recordingId', 'questionId'])
@ForeignKey(() => TemplateQuestion, ['companyId', 'questionId'], ['companyId', 'id'], {
  name: 'recording_answers_company_id_question_id_fkey',
})
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_answers_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@Entity({ name: 'recording_answers' })
export class RecordingAnswer extends CompanyRecord {
  @Column({ name: 'recording_id', type: 'bigint' })
  recordingId: string;

  @Column({ name: 'question_id', type: 'bigint' })
  questionId: string;

  @Column({ type: 'text' })
  answer: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
