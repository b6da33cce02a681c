import { RefreshRun, refreshInTurn } from './refresh-batches';

/** A refresher with `waiting` documents, writing up to a batch of them each call; its calls logged as `name`. */
function refresher(name: string, waiting: number, batch: number, calls: string[]) {
  return {
    batch,
    refreshBatch: async (size: number): Promise<RefreshRun> => {
      calls.push(name);
      const rendered = Math.min(size, waiting);
      waiting -= rendered;
      return { rendered, removed: 0, batches: 1 };
    },
  };
}

describe('refreshInTurn', () => {
  it('runs a batch of each in turn until each did less than a batch, and sums what they did', async () => {
    const calls: string[] = [];
    const run = await refreshInTurn([refresher('recordings', 450, 200, calls), refresher('conversations', 120, 100, calls)], () => false);
    // A backlog in one never holds the other back: conversations finish while recordings still have work.
    expect(calls).toEqual(['recordings', 'conversations', 'recordings', 'conversations', 'recordings']);
    expect(run).toEqual({ rendered: 570, removed: 0, batches: 5 });
  });

  it('stops between batches when told to', async () => {
    const calls: string[] = [];
    let stopped = false;
    const slow = refresher('recordings', 10_000, 200, calls);
    const run = await refreshInTurn(
      [
        {
          batch: slow.batch,
          refreshBatch: async (size) => {
            if (calls.length === 2) stopped = true;
            return slow.refreshBatch(size);
          },
        },
      ],
      () => stopped,
    );
    expect(calls).toHaveLength(3);
    expect(run.batches).toBe(3);
  });
});
