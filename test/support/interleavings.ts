import { Client } from 'pg';
import request from 'supertest';
import type { ChangeEntry } from './feed';

/**
 * The pieces of the machine that interleaves (test/medium/capture-interleavings.medium-spec.ts):
 * a writer connection whose statements may block on row locks, and an integrator's copy built
 * from the change feed, compared with a full read of every route.
 */

/** What a statement came to: its rows, or the error PostgreSQL answered. */
export type Outcome = { ok: true; rows: Array<Record<string, unknown>> } | { ok: false; error: Error & { code?: string } };

/** A statement issued and not yet seen to settle. */
export interface Pending {
  label: string;
  promise: Promise<Outcome>;
  outcome?: Outcome;
}

/**
 * One writer: a `pg` Client of its own (its own application_name and backend), and a watcher's
 * connection that sees whether its backend waits on a lock.
 */
export class WriterConnection {
  pending: Pending | null = null;

  private constructor(
    readonly name: string,
    readonly client: Client,
    readonly pid: number,
  ) {}

  static async open(url: string, name: string): Promise<WriterConnection> {
    const client = new Client({ connectionString: url, application_name: `interleavings-${name}` });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new WriterConnection(name, client, rows[0].pid);
  }

  /**
   * Issues `sql` without awaiting it, then waits until it either settles or its backend is seen
   * waiting on a lock (`pg_blocking_pids` or a `Lock` wait event), whichever comes first;
   * `deadlineMs` bounds that wait (a statement that neither finishes nor waits on a lock is a
   * failure). The statement stays in `pending` until its outcome is taken (takeOutcome).
   */
  async issue(label: string, sql: string, params: unknown[], monitor: Client, deadlineMs: number): Promise<'settled' | 'blocked'> {
    if (this.pending) throw new Error(`${this.name} issued "${label}" while "${this.pending.label}" is pending`);
    const pending: Pending = {
      label,
      promise: this.client.query(sql, params).then(
        (r) => ({ ok: true as const, rows: r.rows as Array<Record<string, unknown>> }),
        (error: Error & { code?: string }) => ({ ok: false as const, error }),
      ),
    };
    void pending.promise.then((o) => (pending.outcome = o));
    this.pending = pending;
    const state = await settledOrWaiting(() => pending.outcome !== undefined, this.pid, monitor, deadlineMs, `${this.name}: "${label}"`);
    return state === 'waiting' ? 'blocked' : 'settled';
  }

  /** Whether the pending statement has settled (or nothing is pending). */
  get blocked(): boolean {
    return this.pending !== null && this.pending.outcome === undefined;
  }

  /** The settled statement's outcome, which frees the connection for the next one. */
  takeOutcome(): { label: string; outcome: Outcome } | null {
    const p = this.pending;
    if (!p || p.outcome === undefined) return null;
    this.pending = null;
    return { label: p.label, outcome: p.outcome };
  }

  /** Ends whatever is going on (after a failed history): cancels a blocked statement, rolls back. */
  async reset(monitor: Client): Promise<void> {
    if (this.pending) {
      if (this.pending.outcome === undefined) await monitor.query('SELECT pg_cancel_backend($1)', [this.pid]);
      await this.pending.promise;
      this.pending = null;
    }
    await this.client.query('ROLLBACK');
  }

  end(): Promise<void> {
    return this.client.end();
  }
}

/**
 * Waits until `settled()` says so or backend `pid` is seen waiting on a lock (`pg_blocking_pids`
 * or a `Lock` wait event), whichever comes first, looking through `monitor`; throws once
 * `deadlineMs` passed with neither (`what` names the statement in the error).
 */
export async function settledOrWaiting(
  settled: () => boolean,
  pid: number,
  monitor: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  deadlineMs: number,
  what: string,
): Promise<'settled' | 'waiting'> {
  const deadline = Date.now() + deadlineMs;
  while (!settled()) {
    const found = await monitor.query(
      `SELECT (wait_event_type = 'Lock' OR cardinality(pg_blocking_pids(pid)) > 0) AS waiting FROM pg_stat_activity WHERE pid = $1`,
      [pid],
    );
    // A pg Client answers { rows }, a TypeORM data source the rows themselves.
    const rows = (Array.isArray(found) ? found : (found as { rows: unknown[] }).rows) as Array<{ waiting: boolean }>;
    if (settled()) break;
    if (rows[0]?.waiting) return 'waiting';
    if (Date.now() > deadline) throw new Error(`${what} neither finished nor waited on a lock within ${deadlineMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return 'settled';
}

/** Resolves with `work`, or rejects once `ms` passed (what blocked is named in the error). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every object the routes show, by `type:id`: each route's answer (`data`) by part. */
export type Objects = Map<string, Record<string, unknown>>;

export const RECORD_PARTS = ['details', 'evaluation', 'answers', 'transcript'] as const;
const COLLECTION: Record<string, string> = { meeting: 'meetings', call: 'calls', email: 'emails', chat: 'chat' };
const PART_PATH: Record<string, string> = {
  details: '',
  evaluation: '/evaluations/overall',
  answers: '/answers',
  transcript: '/transcript',
};

type Http = () => ReturnType<typeof request>;

async function getData(http: Http, auth: string, path: string): Promise<{ status: number; data?: unknown; next?: string | null }> {
  const res = await http().get(path).set('Authorization', auth);
  if (res.status === 404) return { status: 404 };
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return { status: 200, data: res.body.data, next: res.body.pagination?.next_cursor ?? null };
}

async function all(http: Http, auth: string, path: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | null | undefined;
  do {
    const page = await getData(http, auth, `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`GET ${path}: 404`);
    items.push(...(page.data as Array<Record<string, unknown>>));
    cursor = page.next;
  } while (cursor);
  return items;
}

/**
 * Everything the routes show now, by `type:id`: each meeting's and call's details, evaluation,
 * answers and transcript; each conversation's details; each message with its conversation. Read
 * through the list routes with every `include` (a record with `include=evaluation,answers,
 * transcript` is its route's answer with exactly what its part routes answer; a conversation with
 * `include=messages` has every message as its messages route lists it): what the stored
 * documents serve, and a handful of requests per company. `lists` holds the pages as answered.
 */
export async function fullRead(http: Http, auth: string): Promise<{ objects: Objects; lists: Record<string, unknown[]> }> {
  const objects: Objects = new Map();
  const lists: Record<string, unknown[]> = {};
  for (const object of ['meeting', 'call', 'email', 'chat']) {
    const collection = COLLECTION[object];
    const records = object === 'meeting' || object === 'call';
    const items = await all(http, auth, `/v1/${collection}?include=${records ? 'evaluation,answers,transcript' : 'messages'}`);
    lists[collection] = items;
    for (const item of items) {
      const { included, ...details } = item as { id: string; included: Record<string, unknown> };
      if (records) objects.set(`${object}:${details.id}`, { details, ...included });
      else {
        objects.set(`${object}:${details.id}`, { details });
        for (const m of included.messages as Array<{ id: string }>)
          objects.set(`${object}_message:${m.id}`, { parent_id: details.id, details: m });
      }
    }
  }
  return { objects, lists };
}

/**
 * Applies feed entries as an integrator does: `deleted`, drop it; `created` (or an `updated` of
 * an object it does not hold), read it all; `updated`, re-read the parts `changed` names (a
 * conversation's `messages` names no route of the conversation itself: its messages have
 * entries of their own). A 404 on any read drops the object. Returns what it did, for the log.
 */
export async function applyEntries(http: Http, auth: string, copy: Objects, entries: ChangeEntry[]): Promise<string[]> {
  const did: string[] = [];
  for (const e of entries) {
    const key = `${e.object}:${e.object_id}`;
    did.push(`${e.action} ${key}${e.changed.length ? ` [${e.changed.join(',')}]` : ''}${e.parent_id ? ` in ${e.parent_id}` : ''}`);
    if (e.action === 'deleted') {
      copy.delete(key);
      continue;
    }
    if (e.object === 'email_message' || e.object === 'chat_message') {
      const collection = COLLECTION[e.object.replace('_message', '')];
      const got = await getData(http, auth, `/v1/${collection}/${e.parent_id}/messages/${e.object_id}`);
      if (got.status === 404) copy.delete(key);
      else copy.set(key, { parent_id: e.parent_id, details: got.data });
      continue;
    }
    const held = copy.get(key);
    const collection = COLLECTION[e.object];
    const parts: readonly string[] =
      e.action === 'created' || !held
        ? e.object === 'meeting' || e.object === 'call'
          ? RECORD_PARTS
          : ['details']
        : e.changed.filter((p) => p in PART_PATH);
    const next: Record<string, unknown> = { ...(held ?? {}) };
    let gone = false;
    for (const part of parts) {
      const got = await getData(http, auth, `/v1/${collection}/${e.object_id}${PART_PATH[part]}`);
      if (got.status === 404) {
        gone = true;
        break;
      }
      next[part] = got.data;
    }
    if (gone) copy.delete(key);
    else copy.set(key, next);
  }
  return did;
}

/** Where two reads differ, readably (key, part, both values). */
export function differences(label: [string, string], a: Objects, b: Objects): string[] {
  const diffs: string[] = [];
  const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v).slice(0, 600));
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [x, y] = [a.get(key), b.get(key)];
    if (!x) diffs.push(`${key}: only in ${label[1]}`);
    else if (!y) diffs.push(`${key}: only in ${label[0]}`);
    else
      for (const part of new Set([...Object.keys(x), ...Object.keys(y)]))
        if (JSON.stringify(x[part]) !== JSON.stringify(y[part]))
          diffs.push(`${key}.${part}:\n      ${label[0]}: ${show(x[part])}\n      ${label[1]}: ${show(y[part])}`);
  }
  return diffs;
}
