import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A horizon of the feed: every transaction below it had committed when it was marked. */
// synchronize: false: TypeORM has no xid8 type; entities.medium-spec.ts compares this entity's columns itself.
@Entity({ name: 'change_horizons', synchronize: false })
export class ChangeHorizon {
  @PrimaryColumn({ name: 'marked_at', type: 'timestamptz', primaryKeyConstraintName: 'change_horizons_pkey' })
  markedAt: Date;

  /** xid8, which TypeORM has no type for: declared as text (node-postgres reads it as one), the reason this entity is not synchronized. */
  @Column({ type: 'text' })
  horizon: string;

  @Column({ type: 'integer' })
  epoch: number;
}
