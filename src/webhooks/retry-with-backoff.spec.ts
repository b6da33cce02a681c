import { Backoff, retryWithBackoff } from './retry-with-backoff';

/** Work that fails `failures` times, then answers 'done'; counts its tries. */
function flaky(failures: number) {
  const work = jest.fn(async () => {
    if (work.mock.calls.length <= failures) throw new Error(`failure ${work.mock.calls.length}`);
    return 'done';
  });
  return work;
}

describe('retryWithBackoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Runs the retries to their end on the fake clock; what they came to, the waits told and the time they took. */
  async function settle<T>(run: (onRetry: (error: Error, waitMs: number) => void) => Promise<T>) {
    const waits: number[] = [];
    const start = Date.now();
    const result = run((_error, waitMs) => waits.push(waitMs)).then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    );
    await jest.runAllTimersAsync();
    return { ...(await result), waits, elapsedMs: Date.now() - start };
  }

  it.each<[string, number, Omit<Backoff, 'onRetry'>, object]>([
    ['answers the first success without waiting', 0, { firstWaitMs: 500, tries: 4 }, { value: 'done', waits: [], elapsedMs: 0 }],
    [
      'doubles the wait after each failure and throws the last error once the tries are used up',
      10,
      { firstWaitMs: 500, tries: 4 },
      { error: 'failure 4', waits: [500, 1000, 2000], elapsedMs: 3500 },
    ],
    [
      'stops doubling at maxWaitMs and, without a bound on tries, tries until the work succeeds',
      7,
      { firstWaitMs: 1000, maxWaitMs: 30_000 },
      { value: 'done', waits: [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000], elapsedMs: 91_000 },
    ],
  ])('%s', async (_title, failures, backoff, expected) => {
    const work = flaky(failures);
    expect(await settle((onRetry) => retryWithBackoff(work, { ...backoff, onRetry }))).toEqual(expected);
    expect(work).toHaveBeenCalledTimes(Math.min(failures + 1, backoff.tries ?? Infinity));
  });

  it('tries nothing more once stopped, and answers undefined', async () => {
    let stopped = false;
    const work = jest.fn(async () => {
      if (work.mock.calls.length === 2) stopped = true;
      throw new Error('away');
    });
    expect(await settle((onRetry) => retryWithBackoff(work, { firstWaitMs: 1000, stopped: () => stopped, onRetry }))).toEqual({
      value: undefined,
      waits: [1000, 2000],
      elapsedMs: 3000,
    });
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('tries nothing when stopped before the first try', async () => {
    const work = flaky(0);
    expect(await retryWithBackoff(work, { firstWaitMs: 1000, stopped: () => true, onRetry: () => undefined })).toBeUndefined();
    expect(work).not.toHaveBeenCalled();
  });
});
