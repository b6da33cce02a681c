import { Check, Column, Entity, ForeignKey, Unique } from 'typeorm';
import { CompanyRecord } from '../companies/company-record';
import { Template } from './template.entity';
import { QuestionType } from './recording.vocabulary';

/** A template's question, at its position. */
@Check(
  'template_questions_type_check',
  `(type = ANY (ARRAY['text'::text, 'option'::text, 'multi_select'::text, 'boolean'::text, 'number'::text]))`,
)
@Unique('template_questions_company_id_id_key', ['companyId', 'id'])
@Unique('template_questions_public_id_key', ['publicId'])
@Unique('template_questions_template_id_position_key', ['templateId', 'position'])
@ForeignKey(() => Template, ['companyId', 'templateId'], ['companyId', 'id'], { name: 'template_questions_company_id_template_id_fkey' })
@Entity({ name: 'template_questions' })
export class TemplateQuestion extends CompanyRecord {
  @Column({ name: 'template_id', type: 'bigint' })
  templateId: string;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'text' })
  type: QuestionType;

  @Column({ type: 'integer' })
  position: number;
}
