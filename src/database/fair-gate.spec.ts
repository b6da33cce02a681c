import { companyShare, FairGate, GateTimeoutError } from './fair-gate';

/** Lets granted waiters' continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires a slot for each lane named, in order, recording the order in which they are granted. */
function queueUp(gate: FairGate, lanes: string[], granted: string[], timeoutMs = 10_000) {
  return lanes.map((lane, i) =>
    gate.acquire(lane, timeoutMs).then((release) => {
      granted.push(`${lane}${i}`);
      return release;
    }),
  );
}

describe('companyShare', () => {
  it.each([
    [10, 0.5, 5],
    [4, 0.5, 2],
    [3, 0.5, 2],
    [1, 0.5, 1],
    [10, 0.01, 1],
    [10, 1, 10],
    [10, 0.3, 3],
  ])('of a pool of %p at %p is %p connections (rounded up, at least one)', (size, fraction, share) => {
    expect(companyShare(size, fraction)).toBe(share);
  });
});

describe('FairGate', () => {
  afterEach(() => jest.useRealTimers());

  it('lets one lane hold at most its share, even with free capacity, and the next of its requests waits', async () => {
    const gate = new FairGate(4, 2);
    const granted: string[] = [];
    const [a0, a1] = queueUp(gate, ['a', 'a', 'a'], granted);
    await settle();
    expect(granted).toEqual(['a0', 'a1']);
    expect(gate.stats()).toMatchObject({ held: 2, waiting: 1, lanesAtShare: 1 });
    // Another lane is not held up by a's queue.
    const [b0] = queueUp(gate, ['b'], granted);
    await settle();
    expect(granted).toEqual(['a0', 'a1', 'b0']);
    (await a0)();
    await settle();
    expect(granted).toEqual(['a0', 'a1', 'b0', 'a2']);
    (await a1)();
    (await b0)();
    expect(gate.stats()).toMatchObject({ held: 1, waiting: 0 });
  });

  it('hands freed slots round robin across the lanes waiting, not in arrival order', async () => {
    const gate = new FairGate(1, 1);
    const granted: string[] = [];
    const releases: Array<() => void> = [];
    const arrive = (lane: string) =>
      void gate.acquire(lane, 10_000).then((release) => {
        granted.push(lane);
        releases.push(release);
      });
    // a holds the slot; a's flood arrives first, then one request each of b and c, then a's fourth.
    for (const lane of ['a', 'a', 'a', 'b', 'c', 'a']) arrive(lane);
    await settle();
    expect(gate.stats()).toMatchObject({ held: 1, waiting: 5, lanesAtShare: 1 });
    while (releases.length) {
      releases.shift()!();
      await settle();
    }
    // a waited first, so a is served first; then b and c before a's remaining requests.
    expect(granted).toEqual(['a', 'a', 'b', 'c', 'a', 'a']);
    expect(gate.stats()).toMatchObject({ held: 0, waiting: 0, lanesAtShare: 0 });
  });

  it('gives a waiter up after the timeout with the pool’s own failure (a 503), and it never takes a slot afterwards', async () => {
    jest.useFakeTimers();
    const gate = new FairGate(1, 1);
    const release = await gate.acquire('a', 100);
    const late = gate.acquire('a', 100);
    const other = gate.acquire('b', 100);
    jest.advanceTimersByTime(100);
    await expect(late).rejects.toThrow(GateTimeoutError);
    await expect(other).rejects.toMatchObject({
      code: '53300',
      message: expect.stringContaining('timeout exceeded when trying to connect'),
    });
    expect(gate.stats()).toEqual({ held: 1, waiting: 0, lanesAtShare: 1, timedOut: 2 });
    release();
    expect(gate.stats()).toMatchObject({ held: 0, waiting: 0, lanesAtShare: 0 });
  });

  it('drops a waiter whose request went away (abort), and refuses one aborted already', async () => {
    const gate = new FairGate(1, 1);
    const release = await gate.acquire('a', 10_000);
    const gone = new AbortController();
    const waiting = gate.acquire('b', 10_000, gone.signal);
    gone.abort();
    await expect(waiting).rejects.toThrow('went away');
    await expect(gate.acquire('b', 10_000, gone.signal)).rejects.toThrow(GateTimeoutError);
    release();
    expect(gate.stats()).toMatchObject({ held: 0, waiting: 0, lanesAtShare: 0 });
  });

  it('releases the slot of work that fails, and a second release of one slot changes nothing', async () => {
    const gate = new FairGate(2, 1);
    await expect(
      gate.run('a', 1000, async () => {
        throw new Error('query failed');
      }),
    ).rejects.toThrow('query failed');
    expect(gate.stats()).toMatchObject({ held: 0, waiting: 0, lanesAtShare: 0 });
    const release = await gate.acquire('a', 1000);
    const other = await gate.acquire('b', 1000);
    release();
    release();
    expect(gate.stats()).toMatchObject({ held: 1, waiting: 0, lanesAtShare: 1 });
    other();
    // Nothing leaked: the whole capacity is there again, one lane at a time.
    await gate.acquire('c', 1000);
    await gate.acquire('d', 1000);
    expect(gate.stats().held).toBe(2);
  });

  it('never holds more than its capacity, whatever the lanes', async () => {
    const gate = new FairGate(3, 2);
    const granted: string[] = [];
    const all = queueUp(gate, ['a', 'b', 'c', 'd', 'a', 'b'], granted, 50);
    await settle();
    expect(granted).toEqual(['a0', 'b1', 'c2']);
    expect(gate.stats()).toMatchObject({ held: 3, waiting: 3, lanesAtShare: 0 });
    await Promise.allSettled(all);
  });
});
