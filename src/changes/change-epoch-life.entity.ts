import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The current epoch, in the one row the table may hold. */
@Check('change_epoch_life_one_check', 'one')
@Entity({ name: 'change_epoch_life' })
export class ChangeEpochLife {
  @PrimaryColumn({ type: 'boolean', primaryKeyConstraintName: 'change_epoch_life_pkey', default: true })
  one: boolean;

  @Column({ type: 'integer' })
  epoch: number;

  @Column({ name: 'server_started_at', type: 'timestamptz' })
  serverStartedAt: Date;
}
