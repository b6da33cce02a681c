/** How failed work is tried again: waits that double from `firstWaitMs`, up to `maxWaitMs`. */
export interface Backoff {
  /** The wait after the first failure; each later one doubles it. */
  firstWaitMs: number;
  /** The longest wait; no bound when absent. */
  maxWaitMs?: number;
  /** Tries in all, the first included: the last one's error is thrown. No bound when absent. */
  tries?: number;
  /** Asked before each try: once true, nothing more is tried and the result is undefined. */
  stopped?: () => boolean;
  /** Told of each failure that will be tried again, with the wait before the next try (to log it). */
  onRetry(error: Error, waitMs: number): void;
}

/**
 * Runs `work` until it succeeds, waiting after each failure as `backoff` says: the one retry
 * mechanism of the worker for work of its own (the queue's start, a run's bookkeeping), where
 * pg-boss's retry is for jobs and the delivery schedule for receivers.
 */
export async function retryWithBackoff<T>(work: () => Promise<T>, backoff: Backoff & { stopped?: undefined }): Promise<T>;
export async function retryWithBackoff<T>(work: () => Promise<T>, backoff: Backoff): Promise<T | undefined>;
export async function retryWithBackoff<T>(work: () => Promise<T>, backoff: Backoff): Promise<T | undefined> {
  const { firstWaitMs, maxWaitMs = Infinity, tries = Infinity, stopped = () => false, onRetry } = backoff;
  for (let attempt = 1; !stopped(); attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= tries) throw error;
      const waitMs = Math.min(maxWaitMs, firstWaitMs * 2 ** (attempt - 1));
      onRetry(error as Error, waitMs);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
  return undefined;
}
