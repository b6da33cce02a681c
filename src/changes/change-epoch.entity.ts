import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A life of the database server whose transaction ids the feed orders by. */
@Entity({ name: 'change_epochs' })
export class ChangeEpoch {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'change_epochs_pkey' })
  epoch: number;

  @Column({ name: 'server_started_at', type: 'timestamptz' })
  serverStartedAt: Date;

  @Column({ name: 'began_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  beganAt: Date;
}
