import { Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Recording } from './recording.entity';
import { Skill } from './skill.entity';
import { User } from '../companies/user.entity';

/** One user's score on one skill in a recording. */
@Unique('recording_skill_scores_recording_id_user_id_skill_id_key', ['recordingId', 'userId', 'skillId'])
@ForeignKey(() => Recording, ['companyId', 'recordingId'], ['companyId', 'id'], {
  name: 'recording_skill_scores_company_id_recording_id_fkey',
  onDelete: 'CASCADE',
})
@ForeignKey(() => Skill, ['companyId', 'skillId'], ['companyId', 'id'], { name: 'recording_skill_scores_company_id_skill_id_fkey' })
@ForeignKey(() => User, ['companyId', 'userId'], ['companyId', 'id'], { name: 'recording_skill_scores_company_id_user_id_fkey' })
@Entity({ name: 'recording_skill_scores' })
export class RecordingSkillScore {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    primaryKeyConstraintName: 'recording_skill_scores_pkey',
    generatedIdentity: 'ALWAYS',
  })
  id: string;

  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @Column({ name: 'recording_id', type: 'bigint' })
  recordingId: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ name: 'skill_id', type: 'bigint' })
  skillId: string;

  @Column({ type: 'integer' })
  score: number;

  @Column({ type: 'text', nullable: true })
  justification: string | null;
}
