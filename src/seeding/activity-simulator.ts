import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { base, Faker, pt_BR } from '@faker-js/faker';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable, isRetryableTransaction } from '../common/errors/database-errors';
import { dataSourceOptions } from '../database/data-source-options';
import { ACTIVITY_KINDS, ActivityKind, CaptureEvents, referencePool } from './activity-events';

export { ACTIVITY_KINDS, type ActivityKind } from './activity-events';

export interface ActivityPlan {
  /** How long to write, in minutes; without it, until stopped. */
  minutes?: number;
  /** Events (transactions) per minute. */
  rate: number;
  /** Seeds every choice (the kinds' order, which transactions are long or fail, holds, content); random without it. */
  seed?: number;
}

/** One event's transaction, as it ended. */
export interface ActivityReport {
  /** The kind dealt; `kind` is the one written (its fallback's when the dealt one had nothing to act on). */
  drawn: ActivityKind;
  kind: ActivityKind;
  /** `rolled_back`: a capture that failed on purpose; `failed`: an unexpected error (rolled back too, `error` says why). */
  outcome: 'committed' | 'rolled_back' | 'failed';
  error?: string;
  /** The transaction's id (`pg_current_xact_id()`). */
  txid: string;
  /** When it was open (ms since the epoch): from its first statement to the moment COMMIT or ROLLBACK returned. */
  opened: number;
  closed: number;
  /** How long it was held open after its writes (0 for most). */
  heldMs: number;
  /** Public id of the record, conversation or message written. */
  subject: string;
  /** Public ids of the rows it created. */
  created: string[];
  /** Times it was run again after a serialization failure or a deadlock (as a capture system must). */
  retries: number;
}

/** What a run did (what `seed:activity --json` prints). */
export interface ActivitySummary {
  company_id: string;
  seconds: number;
  transactions: number;
  committed: number;
  rolled_back: number;
  /** Committed events by kind, every kind named. */
  events: Record<ActivityKind, number>;
}

export interface ActivityControl {
  /** Aborting it stops the run: no new event starts, held transactions end their hold and commit (or fail as planned). */
  signal?: AbortSignal;
  onEvent?: (report: ActivityReport) => void;
}

/** How many of each kind a deck holds: the mix of a run. */
const DECK: Record<ActivityKind, number> = {
  meeting_captured: 3,
  call_captured: 3,
  transcript_advanced: 4,
  evaluation_advanced: 3,
  answers_filled: 2,
  email_captured: 3,
  email_captured_late: 2,
  chat_started: 1,
  chat_message_arrived: 5,
  chat_message_edited: 2,
  chat_message_revoked: 1,
  chat_deleted: 1,
  recording_removed: 1,
};
/** Per deck: transactions held open after their writes, and captures that fail (rolled back), among kinds dealt three times or more. */
const LONG_PER_DECK = 3;
const FAILING_PER_DECK = 2;
const FAILING_KINDS: ActivityKind[] = ['meeting_captured', 'call_captured', 'email_captured', 'chat_message_arrived'];
const HOLD_MS = { min: 1500, max: 4000 };
/** Transactions open at once, at most (each on its own connection). */
export const MAX_OPEN = 10;
/** Runs of one event's transaction after the first, on serialization failures and deadlocks. */
const MAX_RETRIES = 5;

interface Card {
  kind: ActivityKind;
  long: boolean;
  fails: boolean;
}

class CaptureFailed extends Error {}

/**
 * `seed:activity` and `DEMO_ACTIVITY=1`: writes into an existing company as a capture system
 * would, for the change feed and its readers to see real interleavings. Events are dealt from
 * a shuffled deck (every kind in each deck of 31, so any run of a deck's length writes every
 * kind) at `rate` per minute, each in its own transaction on its own connection, up to
 * MAX_OPEN at once: three per deck are held open for 1.5 to 4 s after their writes while
 * others start and commit (so commit order differs from start and transaction id order, and
 * `created_at`, the transaction's start, trails the commit), and two per deck are captures
 * that fail and roll back after writing. What each kind writes: CaptureEvents.
 */
export class ActivitySimulator {
  constructor(
    /** The schema owner's data source, with a pool of at least `maxOpen` + 1 connections (activityDataSource()). */
    private readonly db: DataSource,
    private readonly maxOpen = MAX_OPEN,
  ) {}

  async run(company: { id: string; publicId: string }, plan: ActivityPlan, control: ActivityControl = {}): Promise<ActivitySummary> {
    const startedAt = new Date();
    const stop = new AbortController();
    const halt = () => stop.abort();
    control.signal?.addEventListener('abort', halt, { once: true });
    if (control.signal?.aborted) halt();
    const master = new Faker({ locale: [pt_BR, base], seed: plan.seed ?? randomInt(2 ** 31 - 1) });
    const deck = new Deck(master);
    const pool = await this.db.transaction((m) => referencePool(m, company.id));
    const captured: string[] = [];
    const events = Object.fromEntries(ACTIVITY_KINDS.map((k) => [k, 0])) as Record<ActivityKind, number>;
    const totals = { transactions: 0, committed: 0, rolled_back: 0 };
    let fatal: unknown;

    const event = async (card: Card, seed: number, holdMs: number): Promise<void> => {
      const f = new Faker({ locale: [pt_BR, base], seed });
      const report: ActivityReport = {
        drawn: card.kind,
        kind: card.kind,
        outcome: 'committed',
        txid: '',
        opened: 0,
        closed: 0,
        heldMs: 0,
        subject: '',
        created: [],
        retries: 0,
      };
      let capturedId: string | undefined;
      try {
        const write = () =>
          this.db.transaction(async (m) => {
            const [{ txid }] = await m.query('SELECT pg_current_xact_id()::text AS txid');
            report.txid = txid;
            report.opened = Date.now();
            const written = await new CaptureEvents(m, company.id, f, pool, { startedAt, captured }).write(card.kind);
            Object.assign(report, { kind: written.kind, subject: written.subject, created: written.created });
            capturedId = written.captured;
            if (holdMs) {
              await pause(holdMs, stop.signal);
              report.heldMs = Date.now() - report.opened;
            }
            if (card.fails) throw new CaptureFailed(`${written.kind} failed on purpose`);
          });
        // As a capture system must: a transaction PostgreSQL aborted as a serialization failure or
        // a deadlock is run again from the start (the same content: its faker is reseeded).
        for (;;) {
          try {
            await write();
            break;
          } catch (error) {
            if (!isRetryableTransaction(error) || report.retries >= MAX_RETRIES || stop.signal.aborted) throw error;
            report.retries++;
            f.seed(seed);
            await pause(randomInt(10, 100), stop.signal);
          }
        }
        if (capturedId) captured.push(capturedId);
        events[report.kind]++;
      } catch (error) {
        report.outcome = error instanceof CaptureFailed ? 'rolled_back' : 'failed';
        if (report.outcome === 'failed') report.error = error instanceof Error ? error.message : String(error);
        if (isDatabaseUnavailable(error)) {
          fatal ??= error;
          halt();
        }
      }
      report.closed = Date.now();
      totals.transactions++;
      if (report.outcome === 'committed') totals.committed++;
      else totals.rolled_back++;
      control.onEvent?.(report);
    };

    const open = new Set<Promise<void>>();
    const endAt = plan.minutes === undefined ? Infinity : startedAt.getTime() + plan.minutes * 60_000;
    const interval = 60_000 / plan.rate;
    for (let due = Date.now(); ; due = Math.max(due + interval, Date.now() - interval)) {
      if (due > Date.now()) await pause(Math.min(due, endAt) - Date.now(), stop.signal);
      while (open.size >= this.maxOpen && !stop.signal.aborted) await Promise.race(open);
      if (stop.signal.aborted || Date.now() >= endAt) break;
      const card = deck.deal();
      const running: Promise<void> = event(card, master.number.int(2 ** 31 - 1), card.long ? master.number.int(HOLD_MS) : 0).finally(() =>
        open.delete(running),
      );
      open.add(running);
    }
    await Promise.all(open);
    control.signal?.removeEventListener('abort', halt);
    if (fatal) throw fatal;
    return { company_id: company.publicId, seconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10, ...totals, events };
  }
}

/** The schema owner's pool for a simulator: one connection per transaction it may hold open, and one more. */
export function activityDataSource(ownerUrl: string, applicationName: string, maxOpen = MAX_OPEN): Promise<DataSource> {
  return new DataSource(dataSourceOptions(ownerUrl, { poolSize: maxOpen + 1, applicationName })).initialize();
}

/** One line for a log: when, how it ended, what it wrote. */
export function reportLine(r: ActivityReport): string {
  const held = (r.heldMs ? ` (held ${(r.heldMs / 1000).toFixed(1)} s)` : '') + (r.retries ? ` (run again ${r.retries}×)` : '');
  const drawn = r.drawn === r.kind ? '' : ` (for ${r.drawn})`;
  return `${new Date(r.closed).toISOString()} tx ${r.txid} ${r.outcome} ${r.kind} ${r.subject}${drawn}${held}${r.error ? `: ${r.error}` : ''}`;
}

/** Every kind DECK times, with LONG_PER_DECK held and FAILING_PER_DECK failing cards, shuffled; dealt again when spent. */
class Deck {
  private cards: Card[] = [];

  constructor(private readonly f: Faker) {}

  deal(): Card {
    if (!this.cards.length) this.cards = this.fresh();
    return this.cards.shift()!;
  }

  private fresh(): Card[] {
    const cards = ACTIVITY_KINDS.flatMap((kind) => Array.from({ length: DECK[kind] }, () => ({ kind, long: false, fails: false })));
    for (const kind of this.f.helpers.arrayElements(FAILING_KINDS, FAILING_PER_DECK)) cards.find((c) => c.kind === kind)!.fails = true;
    for (const card of this.f.helpers.arrayElements(cards, LONG_PER_DECK)) card.long = true;
    return this.f.helpers.shuffle(cards);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}
