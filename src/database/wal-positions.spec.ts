import { lsnOf, serverName, WalTimeline } from './wal-positions';

describe('WAL positions', () => {
  it('reads pg_lsn text as a number that compares across the halves', () => {
    expect(lsnOf('0/16B3748')).toBe(0x16b3748n);
    expect(lsnOf('1/0')).toBeGreaterThan(lsnOf('0/FFFFFFFF'));
    expect(() => lsnOf('16B3748')).toThrow('not a WAL position');
  });

  it('names a server without its credentials', () => {
    expect(serverName('postgres://api:secret@db-ro.example:6432/app')).toBe('db-ro.example:6432/app');
    expect(serverName('postgres://api:secret@db/app')).toBe('db:5432/app');
  });

  describe('WalTimeline: how far behind a standby is, from the primary positions read over time', () => {
    it('unknown before the first reading; 0 for a standby that replayed the newest position', () => {
      const t = new WalTimeline(60_000);
      expect(t.lagSeconds(0n, 0)).toBeNull();
      t.record(100n, 1000);
      expect(t.lagSeconds(100n, 5000)).toBe(0);
    });

    it('behind: as old as the oldest position it has not replayed', () => {
      const t = new WalTimeline(60_000);
      t.record(100n, 1000);
      t.record(200n, 2000);
      t.record(300n, 3000);
      expect(t.lagSeconds(150n, 10_000)).toBe(8); // position 200 exists since 2 s
      expect(t.lagSeconds(99n, 10_000)).toBe(9);
      expect(t.lagSeconds(300n, 10_000)).toBe(0);
    });

    it('an idle primary (no new position) leaves a caught-up standby at 0 and a stalled one growing', () => {
      const t = new WalTimeline(60_000);
      t.record(100n, 1000);
      t.record(100n, 30_000);
      expect(t.lagSeconds(100n, 30_000)).toBe(0);
      expect(t.lagSeconds(50n, 30_000)).toBe(29);
    });

    it('a primary behind the last reading (a failover that lost WAL) starts the timeline anew', () => {
      const t = new WalTimeline(60_000);
      t.record(500n, 1000);
      t.record(300n, 2000);
      expect(t.lagSeconds(300n, 3000)).toBe(0);
      expect(t.lagSeconds(200n, 3000)).toBe(1);
    });

    it('past the window, a standby behind the oldest kept reading is at least the window behind, never caught up', () => {
      const t = new WalTimeline(10_000);
      t.record(100n, 0);
      t.record(200n, 100_000); // the primary wrote again after a long idle stretch
      t.record(300n, 200_000);
      expect(t.lagSeconds(50n, 200_000)).toBeGreaterThanOrEqual(10);
      expect(t.lagSeconds(250n, 200_000)).toBe(0);
    });
  });
});
