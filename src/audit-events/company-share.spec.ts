import { CompanyShare, ShareTimeout } from './company-share';

/** A read that ends when the test says so. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

describe('CompanyShare', () => {
  it('runs at most `share` reads of one company at once; the next waits behind them, in order, and another company never waits', async () => {
    const share = new CompanyShare(2, 10);
    const order: string[] = [];
    const reads = [held(), held(), held()];
    const running = reads.map((read, i) => share.run('cmp_a', 1_000, async () => (order.push(`a${i}`), read.done)));
    await Promise.resolve();
    expect(share.active('cmp_a')).toBe(2);
    expect(order).toEqual(['a0', 'a1']);
    await share.run('cmp_b', 1_000, async () => order.push('b0'));
    expect(order).toEqual(['a0', 'a1', 'b0']);
    reads[1].finish();
    await running[1];
    await Promise.resolve();
    expect(order).toEqual(['a0', 'a1', 'b0', 'a2']);
    reads[0].finish();
    reads[2].finish();
    await Promise.all(running);
    expect(share.active('cmp_a')).toBe(0);
  });

  it('refuses a read that waited too long, or arrived with too many of its company waiting, and gives its turn to no one', async () => {
    jest.useFakeTimers();
    try {
      const share = new CompanyShare(1, 1);
      const first = held();
      const running = share.run('cmp_a', 100, () => first.done);
      const waiting = share.run('cmp_a', 100, async () => 'ran');
      await expect(share.run('cmp_a', 100, async () => 'ran')).rejects.toBeInstanceOf(ShareTimeout);
      jest.advanceTimersByTime(100);
      await expect(waiting).rejects.toBeInstanceOf(ShareTimeout);
      first.finish();
      await running;
      expect(share.active('cmp_a')).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('frees the turn of a read that failed', async () => {
    const share = new CompanyShare(1, 1);
    await expect(share.run('cmp_a', 100, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(share.run('cmp_a', 100, async () => 'ran')).resolves.toBe('ran');
  });
});
