/**
 * Positions in the primary's write-ahead log, and how far behind it a standby's replay is.
 * PostgreSQL's `pg_lsn` is two hexadecimal halves (`16/B374D848`); as a bigint they compare.
 */
export function lsnOf(text: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`not a WAL position: ${JSON.stringify(text.slice(0, 40))}`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** A server named as an operator knows it, without credentials: `host:port/database`. */
export function serverName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * The primary's WAL positions over the last `keepMs`, each with when it was read: a standby that
 * replayed up to position R is as far behind as the oldest reading past R is old (the WAL it has
 * not replayed has existed that long), and not behind at all when it replayed the newest. This
 * is the primary's `replay_lag` measured from the reader's side: it needs no privilege
 * (`pg_stat_replication` shows other sessions' rows only to monitoring roles) and no mapping from
 * a standby's URL to its replication connection, and an idle primary writes no WAL, so an idle
 * standby is never behind.
 */
export class WalTimeline {
  private readings: Array<{ at: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  /** The primary's current position, read at `at` (ms). */
  record(lsn: bigint, at: number): void {
    const last = this.readings[this.readings.length - 1];
    // Behind the last reading: another primary (a failover that lost WAL), whose positions start a timeline of their own.
    if (last && lsn < last.lsn) this.readings = [];
    if (!last || lsn !== last.lsn || !this.readings.length) this.readings.push({ at, lsn });
    // The newest reading older than the window stays: a standby behind it is then at least
    // `keepMs` behind, never taken for one that caught up.
    while (this.readings.length > 1 && this.readings[1].at < at - this.keepMs) this.readings.shift();
  }

  /**
   * Seconds a standby that replayed up to `replayed` is behind at `now` (exact up to `keepMs`, at
   * least `keepMs` beyond); null before any reading of the primary.
   */
  lagSeconds(replayed: bigint, now: number): number | null {
    if (!this.readings.length) return null;
    const behind = this.readings.find((r) => r.lsn > replayed);
    return behind ? Math.max(0, now - behind.at) / 1000 : 0;
  }
}
