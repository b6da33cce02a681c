import { Faker } from '@faker-js/faker';
import { EntityManager } from 'typeorm';
import { RecordingKind } from '../recordings/recording.vocabulary';
import { ActivityPool } from './activity-pool';
import { ConversationsFactory } from './conversations.factory';
import { RecordingsFactory } from './recordings.factory';
import { Ref } from './tenant-factory';

/** How far back a capture system looks for work: the newest records of a kind (a bounded index walk at any volume). */
const WINDOW = 500;
/** Candidates fetched per claim, and how many of them are tried. */
export const CANDIDATES = 20;
const TRIES = 5;
/** A company keeps at least this many live chats and records of each kind in its newest window. */
export const KEEP = 4;

/**
 * What every capture event works with (its transaction `m`, its company, the run's randomness,
 * the rows new captures point to, the run itself) and how it claims the row it acts on, as a
 * pool of capture workers would (CaptureEvents says why).
 */
export abstract class CaptureWriter {
  protected readonly recordings: RecordingsFactory;
  protected readonly conversations: ConversationsFactory;

  constructor(
    protected readonly m: EntityManager,
    protected readonly companyId: string,
    protected readonly f: Faker,
    protected readonly pool: ActivityPool,
    /** The run's start (a late e-mail was sent before it) and the records it captured (removed first). */
    protected readonly run: { startedAt: Date; captured: readonly string[] },
  ) {
    this.recordings = new RecordingsFactory(m, companyId);
    this.conversations = new ConversationsFactory(m, companyId);
  }

  /** The newest records of a kind of the company ($1, $2), with `columns`: where a capture system looks for work. */
  protected newest(columns: string, filter = '', limit = WINDOW): string {
    return `SELECT ${columns} FROM recordings WHERE company_id = $1 AND kind = $2 ${filter} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
  }

  protected account(): (Ref & { domain: string }) | undefined {
    return this.pool.accounts.length ? this.f.helpers.arrayElement(this.pool.accounts) : undefined;
  }

  protected recordingKind(): RecordingKind {
    return this.f.datatype.boolean() ? 'meeting' : 'call';
  }

  /** Claims a record as claim() does, of either kind (a kind drawn first, then the other); `candidates` takes the company and the kind. */
  protected async claimRecording<T>(candidates: string, claim: string): Promise<T | null> {
    const first = this.recordingKind();
    for (const kind of [first, first === 'meeting' ? 'call' : 'meeting']) {
      const row = await this.claim<T>(candidates, [this.companyId, kind], claim);
      if (row) return row;
    }
    return null;
  }

  /**
   * Claims one row for this transaction: reads up to CANDIDATES ids with `candidates`, then
   * locks the first of a few of them, in random order, that `claim` (by id, `$1`) still
   * returns: a row another event holds is skipped, one that stopped qualifying is not returned.
   */
  protected async claim<T>(candidates: string, params: unknown[], claim: string): Promise<T | null> {
    const ids = (await this.m.query(`${candidates} LIMIT ${CANDIDATES}`, params)).map((r: { id: string }) => String(r.id));
    return this.claimOne<T>(ids, claim);
  }

  protected async claimOne<T>(ids: string[], claim: string): Promise<T | null> {
    for (const id of this.f.helpers.shuffle(ids).slice(0, TRIES)) {
      const [row] = await this.m.query(claim, [id]);
      if (row) return row as T;
    }
    return null;
  }
}
