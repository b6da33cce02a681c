import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DocumentRefresher } from './document-refresher';

/** How long an idle refresher waits before it looks again. */
export const DOCUMENT_POLL_MS = 500;

/**
 * The read model's loop in the worker: refresh until nothing waits, then look again every
 * DOCUMENT_POLL_MS. A failure (the database away) is logged and retried; reads never depend on
 * it (a record without a current document is rendered live).
 */
@Injectable()
export class DocumentWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Documents');
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** Counters since start. */
  readonly stats = { rendered: 0, removed: 0, errors: 0 };

  constructor(private readonly refresher: DocumentRefresher) {}

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const run = await this.refresher.refreshAll(() => this.stopped);
        this.stats.rendered += run.rendered;
        this.stats.removed += run.removed;
        if (run.rendered) this.logger.debug(`rendered ${run.rendered} documents in ${run.batches} batches`);
      } catch (error) {
        this.stats.errors++;
        this.logger.warn(`document refresh failed, will retry: ${(error as Error).message}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DOCUMENT_POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
