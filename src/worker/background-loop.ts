import { Logger } from '@nestjs/common';

/** A loop's work: one run; `true` when it did something and should run again at once. */
export type LoopWork = () => Promise<boolean | void>;

/**
 * The one periodic mechanism of the worker: a named loop that runs its work, then sleeps
 * `everyMs` (or not at all when the work asks to run again), until stopped. `wake()` ends a sleep
 * early (the dispatcher wakes the sender when it queued a batch, and the other way round). A run
 * that fails is logged and counted and the loop sleeps at least a second before the next one (a
 * database away does not turn a 50 ms poll into a flood of warnings). One run at a time, never
 * overlapping; `stop()` waits for the run in progress.
 *
 * Why not pg-boss's `schedule`: its schedules are cron expressions (a minute at the finest) and
 * are checked every 30 seconds, while the dispatcher and the sender poll every 50 to 250 ms and
 * are woken by each other; and every process runs these loops anyway (each loop's work is safe
 * to run in any number of processes: SKIP LOCKED, advisory locks, idempotent statements).
 */
export class BackgroundLoop {
  readonly stats = { runs: 0, failures: 0 };
  private stopped = false;
  private ring?: () => void;
  private woken = false;
  private done?: Promise<void>;

  constructor(
    readonly name: string,
    readonly everyMs: number,
    private readonly work: LoopWork,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.done ??= this.loop();
  }

  wake(): void {
    if (this.ring) this.ring();
    else this.woken = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.done;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let again = false;
      let pause = this.everyMs;
      try {
        again = (await this.work()) === true;
        this.stats.runs++;
      } catch (error) {
        this.stats.failures++;
        pause = Math.max(this.everyMs, 1000);
        this.logger.warn(`${this.name} failed, will retry: ${(error as Error).message}`);
      }
      if (!again && !this.stopped) await this.sleep(pause);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.ring = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.ring = done;
    });
  }
}
