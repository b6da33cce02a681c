import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Team } from './team.entity';
import { User } from './user.entity';

/** A user in a team; at most one membership per user is the default (team_memberships_one_default_idx). */
@Check('team_memberships_role_check', `(role = ANY (ARRAY['participant'::text, 'leadership'::text, 'observer'::text]))`)
@ForeignKey(() => Team, ['companyId', 'teamId'], ['companyId', 'id'], { name: 'team_memberships_company_id_team_id_fkey' })
@ForeignKey(() => User, ['companyId', 'userId'], ['companyId', 'id'], { name: 'team_memberships_company_id_user_id_fkey' })
@Index('team_memberships_one_default_idx', ['userId'], { unique: true, where: 'is_default' })
@Index('team_memberships_team_idx', ['teamId'])
@Entity({ name: 'team_memberships' })
export class TeamMembership {
  @Column({ name: 'company_id', type: 'bigint' })
  companyId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: 'team_memberships_pkey' })
  userId: string;

  @PrimaryColumn({ name: 'team_id', type: 'bigint', primaryKeyConstraintName: 'team_memberships_pkey' })
  teamId: string;

  @Column({ type: 'text' })
  /** participant, leadership or observer (TEAM_ROLES, in recordings/, which builds on this folder). */
  role: string;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
