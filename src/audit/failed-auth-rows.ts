import { addressPartition } from '../rate-limit/rate-limiter';
import type { AuditEvent } from './audit-event';

/** The window failures of one address and reason are gathered over. */
export const FAILED_AUTH_WINDOW_MS = 60_000;
/** Failures of one address and reason written one row each per window before the rest are gathered. */
export const FAILED_AUTH_ROWS = 10;
/** Addresses (and reasons) gathered at once; past that, every further one shares one key. */
const MAX_KEYS = 10_000;

interface Gathered {
  individual: number;
  /** The first failure past FAILED_AUTH_ROWS, whose row stands for `attempts` of them. */
  first?: AuditEvent;
  attempts: number;
}

/**
 * Failed authentication without one audit row per request: per (address — an IPv6 one by its
 * /64, as the failed-auth limit counts it —, reason, company named)
 * and window of FAILED_AUTH_WINDOW_MS from the first failure, the first FAILED_AUTH_ROWS are rows
 * of their own (a client with an expired token, an operator's typo: every detail kept); the rest
 * become one row when the window ends, describing the first of them, with `attempts` their number.
 * A flood from one address then writes at most FAILED_AUTH_ROWS + 1 rows a minute per reason, and
 * the trail still shows the attempts, their count and where they came from.
 */
export class FailedAuthRows {
  private readonly gathered = new Map<string, Gathered>();

  /** `write` receives the rows to record: at once, or when a window ends. */
  constructor(private readonly write: (event: AuditEvent) => void) {}

  record(event: AuditEvent, reason: string): void {
    // By the address as the failed-auth limit counts it (IPv6 by its /64): a host rotating its
    // addresses within its /64 is one key, not a row of its own per request.
    let key = `${addressPartition(event.address ?? undefined)}|${reason}|${event.company ?? ''}`;
    if (!this.gathered.has(key) && this.gathered.size >= MAX_KEYS) key = `*|${reason}|`;
    let entry = this.gathered.get(key);
    if (!entry) {
      entry = { individual: 0, attempts: 0 };
      this.gathered.set(key, entry);
      setTimeout(() => this.close(key), FAILED_AUTH_WINDOW_MS).unref();
    }
    if (entry.individual < FAILED_AUTH_ROWS) {
      entry.individual += 1;
      this.write(event);
      return;
    }
    entry.first ??= event;
    entry.attempts += 1;
  }

  /** Writes every window's gathered row now (at shutdown). */
  flush(): void {
    for (const key of [...this.gathered.keys()]) this.close(key);
  }

  private close(key: string): void {
    const entry = this.gathered.get(key);
    if (!entry) return;
    this.gathered.delete(key);
    // Dated when written (the window's end), not at its first attempt: a reader paging the trail
    // newest first, already past that moment, would never see a row written behind it.
    if (entry.first) this.write({ ...entry.first, occurredAt: new Date(), attempts: entry.attempts });
  }
}
