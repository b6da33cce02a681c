/**
 * An RFC 3339 instant with an explicit offset, kept to the microsecond (PostgreSQL's
 * precision) so that exclusive bounds compare exactly.
 */
export class Instant {
  private constructor(
    /** Microseconds since the epoch. */
    readonly micros: bigint,
  ) {}

  /** UTC text PostgreSQL parses without loss: `2026-01-02T03:04:05.123456Z`. */
  get iso(): string {
    let seconds = this.micros / 1_000_000n;
    if (seconds * 1_000_000n > this.micros) seconds -= 1n; // floor, also before 1970
    const micro = this.micros - seconds * 1_000_000n;
    const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
    return `${base}.${String(micro).padStart(6, '0')}Z`;
  }

  static fromDate(date: Date): Instant {
    return new Instant(BigInt(date.getTime()) * 1000n);
  }

  /** The instant, or null when `text` is not RFC 3339 with an explicit offset. */
  static parse(text: string): Instant | null {
    const m = RFC3339.exec(text);
    if (!m) return null;
    const [, y, mo, d, h, mi, s, frac, zone] = m;
    const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
    if (hour > 23 || minute > 59 || second > 59) return null;
    let offsetMinutes = 0;
    if (zone !== 'Z' && zone !== 'z') {
      const sign = zone[0] === '-' ? -1 : 1;
      const [oh, om] = zone.slice(1).split(':').map(Number);
      if (oh > 23 || om > 59) return null;
      offsetMinutes = sign * (oh * 60 + om);
    }
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, 0);
    const ms = date.getTime() - offsetMinutes * 60_000;
    if (ms < MIN_MS || ms > MAX_MS) return null;
    return new Instant(BigInt(ms) * 1000n + BigInt((frac ?? '').slice(1, 7).padEnd(6, '0')));
  }
}

/** Years 0001 to 9999 in UTC: what both RFC 3339 and PostgreSQL can write back. */
const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
