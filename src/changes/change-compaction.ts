import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

/** What one compaction run did. */
export interface CompactionRun {
  /** Objects whose older entries were merged into their newest one. */
  merged: number;
  batches: number;
  /** True when another instance held the compaction lock, so this run stopped. */
  busy: boolean;
}

/** Objects per batch: one short transaction each, so readers and writers never wait long. */
export const COMPACTION_BATCH = 1000;

/** Seconds between horizon marks (app_mark_change_horizon): an instant's position is at most this much earlier than needed. */
export const HORIZON_MARK_SECONDS = 60;

/**
 * Compacts the change log: entries older than CHANGES_COMPACT_AFTER are merged into the newest
 * entry of their object (`app_compact_changes`, which runs as the schema owner), in batches of
 * COMPACTION_BATCH objects, each its own transaction under an advisory lock, so one instance
 * compacts at a time and the others skip their turn. Storage then grows with the number of
 * objects, and a cursor from before still yields every object changed since.
 *
 * Runs in the worker's loops every CHANGES_COMPACT_INTERVAL_SECONDS (src/worker/background-runner.ts),
 * and on demand through `changes:compact`. The worker also marks the feed's horizon every
 * HORIZON_MARK_SECONDS (`markHorizon`), which turns an instant into a position (`positionAt`);
 * every process marks it once when it starts.
 */
@Injectable()
export class ChangeCompaction implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Changes');
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Merges every entry committed before `before` into its object's newest, batch by batch. */
  async compact(
    before = new Date(Date.now() - this.config.changes.compactAfterSeconds * 1000),
    batch = COMPACTION_BATCH,
  ): Promise<CompactionRun> {
    const run: CompactionRun = { merged: 0, batches: 0, busy: false };
    while (!this.stopped) {
      const [{ merged }] = await this.db.query<Array<{ merged: number }>>('SELECT app_compact_changes($1, $2) AS merged', [before, batch]);
      if (merged < 0) return { ...run, busy: true };
      run.batches++;
      run.merged += merged;
      if (merged < batch) break;
    }
    return run;
  }

  /** Records the feed's horizon now: every transaction below it has finished. */
  async markHorizon(): Promise<void> {
    await this.db.query('SELECT app_mark_change_horizon()');
  }

  onApplicationBootstrap(): void {
    // This server life's epoch recorded now, in a short transaction of its own, so that writers
    // seldom have to (the first writer of a life waits for nobody, but holds others until it commits).
    this.running = this.markHorizon()
      .catch((error: Error) => this.logger.warn(`marking the change feed's horizon failed, will retry: ${error.message}`))
      .finally(() => (this.running = undefined));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
