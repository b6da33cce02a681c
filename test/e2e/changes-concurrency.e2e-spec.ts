import { NestExpressApplication } from '@nestjs/platform-express';
import fc from 'fast-check';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ChangeCompaction } from '../../src/changes/change-compaction';
import { Company } from '../../src/companies/company.entity';
import { mintId } from '../../src/common/ids/public-id';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { runCli } from '../support/cli';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { FeedReader, idsOf } from '../support/feed';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';

/** A cutoff after everything: compaction then merges every entry but the newest of each object. */
const future = () => new Date(Date.now() + 3_600_000);

/** FEED_SEED and FEED_PATH replay a failure fast-check reported (its seed and path). */
const replay = () => (process.env.FEED_SEED ? { seed: Number(process.env.FEED_SEED), path: process.env.FEED_PATH } : {});

describe('the change feed under concurrent writers and compaction [waits]', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  const http = () => request(app.getHttpServer());
  let company: Company;
  let seller: UserRef;
  let people: RecordingsFactory;
  let token: string;

  beforeAll(async () => {
    // Compaction is the whole database's: here every company's entries in the shared test database,
    // with those other files write meanwhile (capture-interleavings' thousands, in a fresh clone's
    // order beside this file), on a busy machine. A statement may take longer than the service's 5 s;
    // the properties are about what compaction leaves, not how fast it runs (bench:capture measures that).
    [db, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { DB_STATEMENT_TIMEOUT_MS: '60000' } })]);
    company = await createCompany(db);
    people = new RecordingsFactory(db, company.id);
    seller = await people.user({ name: 'Ana', email: `ana.${company.publicId.slice(4, 12)}@empresa.com.br` });
    token = await tokenFor(http(), await createClient(db, company, { scopes: ['meetings.read'] }));
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  async function readerFromNow(): Promise<FeedReader> {
    const res = await http().get('/v1/changes?start=now').set('Authorization', `Bearer ${token}`).expect(200);
    const reader = new FeedReader(http, token);
    reader.cursor = res.body.pagination.next_cursor;
    return reader;
  }

  const ownerClient = async () => {
    const client = new Client({ connectionString: process.env.TEST_MIGRATION_DATABASE_URL, application_name: 'feed-writer' });
    await client.connect();
    return client;
  };

  /** Inserts a bare meeting through `client` (in whatever transaction it has open). */
  async function insertMeeting(client: Client): Promise<Ref> {
    const publicId = mintId('meeting');
    const { rows } = await client.query(
      `INSERT INTO recordings (public_id, company_id, kind, title, media_type, audience, meeting_at, duration_seconds, owner_id, bot_history)
       VALUES ($1, $2, 'meeting', 'Nova', 'video', 'internal', now(), 60, $3, '[]') RETURNING id`,
      [publicId, company.id, seller.id],
    );
    return { id: String(rows[0].id), publicId };
  }

  describe('random interleavings (fast-check)', () => {
    type Step =
      | { kind: 'begin' | 'commit' | 'rollback'; writer: number }
      | { kind: 'update' | 'transcript' | 'delete'; writer: number; target: number }
      | { kind: 'create'; writer: number }
      | { kind: 'poll' }
      | { kind: 'compact' };
    const WRITERS = 3;
    const writer = fc.integer({ min: 0, max: WRITERS - 1 });
    const target = fc.nat();
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constantFrom('begin' as const, 'commit' as const, 'rollback' as const), writer }),
      fc.record({ kind: fc.constantFrom('update' as const, 'transcript' as const, 'delete' as const), writer, target }),
      fc.record({ kind: fc.constant('create' as const), writer }),
      fc.record({ kind: fc.constant('poll' as const) }),
      fc.record({ kind: fc.constant('compact' as const) }),
    );

    it('tells the reader of every object changed after its cursor, whatever the order of commits, rollbacks and compactions', async () => {
      const clients = await Promise.all(Array.from({ length: WRITERS }, ownerClient));
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 40 }), async (steps) => {
            const live: Ref[] = [];
            for (let i = 0; i < 4; i++) live.push(await people.recording('meeting', { owner: seller }));
            const reader = await readerFromNow();
            // Per writer: open or not, and what its open transaction changed, created and removed.
            const open = Array.from({ length: WRITERS }, () => false);
            const pending = Array.from({ length: WRITERS }, () => ({
              changed: new Set<string>(),
              created: [] as Ref[],
              deleted: new Set<string>(),
            }));
            /** Objects a writer's open transaction has touched (row locks): the others leave them alone. */
            const lockedBy = new Map<string, number>();
            const changed = new Set<string>();
            const deleted = new Set<string>();
            const end = async (w: number, commit: boolean) => {
              await clients[w].query(commit ? 'COMMIT' : 'ROLLBACK');
              const p = pending[w];
              if (commit) {
                p.changed.forEach((id) => changed.add(id));
                p.deleted.forEach((id) => deleted.add(id));
                live.push(...p.created);
                for (const id of p.deleted)
                  live.splice(
                    live.findIndex((r) => r.publicId === id),
                    1,
                  );
              }
              for (const [id, owner] of lockedBy) if (owner === w) lockedBy.delete(id);
              pending[w] = { changed: new Set(), created: [], deleted: new Set() };
              open[w] = false;
            };
            for (const s of steps) {
              if (s.kind === 'poll') await reader.poll();
              else if (s.kind === 'compact') await app.get(ChangeCompaction).compact(future());
              else if (s.kind === 'begin') {
                if (!open[s.writer]) await clients[s.writer].query('BEGIN');
                open[s.writer] = true;
              } else if (s.kind === 'commit' || s.kind === 'rollback') {
                if (open[s.writer]) await end(s.writer, s.kind === 'commit');
              } else {
                const client = clients[s.writer];
                const p = pending[s.writer];
                if (s.kind === 'create') {
                  const made = await insertMeeting(client);
                  if (open[s.writer]) {
                    p.created.push(made);
                    p.changed.add(made.publicId);
                    lockedBy.set(made.publicId, s.writer);
                  } else {
                    live.push(made);
                    changed.add(made.publicId);
                  }
                  continue;
                }
                const candidates = live.filter((r) => !p.deleted.has(r.publicId) && (lockedBy.get(r.publicId) ?? s.writer) === s.writer);
                if (!candidates.length) continue;
                const ref = candidates[('target' in s ? s.target : 0) % candidates.length];
                const sql = {
                  update: `UPDATE recordings SET title = 'Título ' || md5(random()::text) WHERE id = $1`,
                  transcript: `INSERT INTO transcripts (company_id, recording_id, variant, utterances)
                               SELECT company_id, id, 'original', '[]' FROM recordings WHERE id = $1
                               ON CONFLICT (recording_id, variant) DO UPDATE SET utterances = '[{"x": 1}]'`,
                  delete: `DELETE FROM recordings WHERE id = $1`,
                }[s.kind];
                await client.query(sql, [ref.id]);
                if (open[s.writer]) {
                  p.changed.add(ref.publicId);
                  if (s.kind === 'delete') p.deleted.add(ref.publicId);
                  lockedBy.set(ref.publicId, s.writer);
                } else {
                  changed.add(ref.publicId);
                  if (s.kind === 'delete') {
                    deleted.add(ref.publicId);
                    live.splice(live.indexOf(ref), 1);
                  }
                }
              }
            }
            for (let w = 0; w < WRITERS; w++) if (open[w]) await end(w, w % 2 === 0);
            // Once every writer has finished, the reader is told of every object changed after its cursor.
            await eventually(async () => {
              await reader.poll();
              const told = new Set(idsOf(reader.seen));
              return [...changed].every((id) => told.has(id));
            }, 30_000);
            for (const id of deleted) {
              // Told it was deleted. Not always last: entries sort by transaction id, and a transaction
              // that started writing first may delete an object after a later one updated it and committed.
              expect(reader.seen.filter((e) => e.object_id === id).map((e) => e.action)).toContain('deleted');
              await http().get(`/v1/meetings/${id}`).set('Authorization', `Bearer ${token}`).expect(404);
            }
          }),
          { numRuns: Number(process.env.FEED_RUNS ?? 12), endOnFailure: true, ...replay() },
        );
      } finally {
        for (const c of clients) {
          await c.query('ROLLBACK').catch(() => undefined);
          await c.end();
        }
      }
    });
  });

  describe('a copy of chats built from the feed (fast-check)', () => {
    type Step =
      | { kind: 'begin'; writer: number }
      | { kind: 'commit'; writer: number }
      | { kind: 'rollback'; writer: number }
      | { kind: 'chat'; writer: number }
      | { kind: 'message'; writer: number; target: number }
      | { kind: 'edit'; writer: number; target: number }
      | { kind: 'remove'; writer: number; target: number }
      | { kind: 'move'; writer: number; target: number; to: number }
      | { kind: 'poll' }
      | { kind: 'compact' };
    const WRITERS = 3;
    const writer = fc.integer({ min: 0, max: WRITERS - 1 });
    const step = fc.oneof(
      fc.record({ kind: fc.constantFrom('begin' as const, 'commit' as const, 'rollback' as const, 'chat' as const), writer }),
      fc.record({ kind: fc.constantFrom('message' as const, 'edit' as const, 'remove' as const), writer, target: fc.nat() }),
      fc.record({ kind: fc.constant('move' as const), writer, target: fc.nat(), to: fc.nat() }),
      fc.record({ kind: fc.constantFrom('poll' as const, 'compact' as const) }),
    ) as fc.Arbitrary<Step>;

    /** A chat of `company` with no message, inserted through `client` (in whatever transaction it has open). */
    async function insertChat(client: Client, company: string, seller: string): Promise<{ id: string; publicId: string }> {
      const { rows } = await client.query(
        `INSERT INTO chat_conversations (public_id, company_id, source, chat_key, is_group, contact_phone, contact_name, seller_id,
           seller_phone, first_message_at, last_message_at, last_message_direction)
         VALUES ($1, $2, 'chat_web', md5(random()::text), false, '+55 11 91111-2222', 'Cliente', $3, '+55 11 90000-0000', now(), now(), 'inbound')
         RETURNING id::text, public_id AS "publicId"`,
        [mintId('chatConversation'), company, seller],
      );
      return rows[0];
    }

    /** A message in `chat`, inserted through `client`. */
    async function insertMessage(client: Client, company: string, chat: string): Promise<{ id: string; chat: string; publicId: string }> {
      const { rows } = await client.query(
        `INSERT INTO chat_messages (public_id, company_id, conversation_id, external_id, sent_at, direction, author_phone, author_name, type, text)
         VALUES ($1, $2, $3, md5(random()::text), clock_timestamp(), 'inbound', '+55 11 98888-7777', 'Cliente', 'text', 'oi')
         RETURNING id::text, conversation_id::text AS chat, public_id AS "publicId"`,
        [mintId('chatMessage'), company, chat],
      );
      return rows[0];
    }

    /** What a client holds: each chat's and each message's detail body (a message with its conversation). */
    type Copy = Map<string, string>;

    /** Applies feed entries as the recipe says: created or updated, fetch it (a 404 drops it); deleted, drop it. */
    async function apply(
      copy: Copy,
      entries: Array<{ object: string; object_id: string; parent_id: string | null; action: string }>,
      auth: string,
    ) {
      for (const e of entries) {
        const key = `${e.object}:${e.object_id}`;
        if (e.action === 'deleted') {
          copy.delete(key);
          continue;
        }
        const path = e.object === 'chat' ? `/v1/chat/${e.object_id}` : `/v1/chat/${e.parent_id}/messages/${e.object_id}`;
        const res = await http().get(path).set('Authorization', auth);
        if (res.status === 404) copy.delete(key);
        else if (res.status === 200)
          copy.set(key, JSON.stringify(e.object === 'chat' ? res.body.data : { chat: e.parent_id, ...res.body.data }));
        else throw new Error(`GET ${path}: ${res.status}`);
      }
    }

    /** Every chat and message the routes show now, read route by route. */
    async function fullRead(auth: string): Promise<Copy> {
      const all: Copy = new Map();
      const list = async (path: string) => {
        const items: Array<{ id: string }> = [];
        let cursor: string | null = null;
        do {
          const res: request.Response = await http()
            .get(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
            .set('Authorization', auth)
            .expect(200);
          items.push(...res.body.data);
          cursor = res.body.pagination.next_cursor;
        } while (cursor);
        return items;
      };
      for (const chat of await list('/v1/chat')) {
        all.set(
          `chat:${chat.id}`,
          JSON.stringify((await http().get(`/v1/chat/${chat.id}`).set('Authorization', auth).expect(200)).body.data),
        );
        for (const m of await list(`/v1/chat/${chat.id}/messages`)) {
          const body = (await http().get(`/v1/chat/${chat.id}/messages/${m.id}`).set('Authorization', auth).expect(200)).body.data;
          all.set(`chat_message:${m.id}`, JSON.stringify({ chat: chat.id, ...body }));
        }
      }
      return all;
    }

    it('ends equal to a full read, whatever the interleaving of arrivals, edits, moves and cascaded removals', async () => {
      const clients = await Promise.all(Array.from({ length: WRITERS }, ownerClient));
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 40 }), async (steps) => {
            const tenant = await createCompany(db);
            const owner = await new RecordingsFactory(db, tenant.id).user();
            const auth = `Bearer ${await tokenFor(http(), await createClient(db, tenant, { scopes: ['chat.read', 'chat.content.read'] }))}`;
            const reader = new FeedReader(http, auth.slice('Bearer '.length));
            const copy: Copy = new Map();
            const open = Array.from({ length: WRITERS }, () => false);
            /** Rows (chat:<id>, msg:<id>) a writer's open transaction wrote or locked: the others leave them alone. */
            const lockedBy = new Map<string, number>();
            const free = (w: number, ...rows: string[]) => rows.every((r) => (lockedBy.get(r) ?? w) === w);
            const lock = (w: number, ...rows: string[]) => open[w] && rows.forEach((r) => lockedBy.set(r, w));
            const seen = async (w: number, sql: string, params: unknown[] = []) =>
              (await clients[w].query(sql, params)).rows as Array<{ id: string; chat: string }>;
            const newMessage = async (w: number, chat: string) => [await insertMessage(clients[w], tenant.id, chat)];
            for (const s of steps) {
              if (s.kind === 'poll') await apply(copy, await reader.poll(), auth);
              else if (s.kind === 'compact') await app.get(ChangeCompaction).compact(future());
              else if (s.kind === 'begin') {
                if (!open[s.writer]) await clients[s.writer].query('BEGIN');
                open[s.writer] = true;
              } else if (s.kind === 'commit' || s.kind === 'rollback') {
                if (open[s.writer]) await clients[s.writer].query(s.kind === 'commit' ? 'COMMIT' : 'ROLLBACK');
                open[s.writer] = false;
                for (const [row, w] of lockedBy) if (w === s.writer) lockedBy.delete(row);
              } else if (s.kind === 'chat') {
                const chat = await insertChat(clients[s.writer], tenant.id, owner.id);
                const [m] = await newMessage(s.writer, chat.id);
                lock(s.writer, `chat:${chat.id}`, `msg:${m.id}`);
              } else {
                // Targets as this writer sees them, never one another open transaction holds.
                const chats = (
                  await seen(s.writer, 'SELECT id::text FROM chat_conversations WHERE company_id = $1 ORDER BY id', [tenant.id])
                ).filter((c) => free(s.writer, `chat:${c.id}`));
                const messages = (
                  await seen(
                    s.writer,
                    'SELECT id::text, conversation_id::text AS chat FROM chat_messages WHERE company_id = $1 ORDER BY id',
                    [tenant.id],
                  )
                ).filter((m) => free(s.writer, `msg:${m.id}`, `chat:${m.chat}`));
                if (s.kind === 'message' && chats.length) {
                  const chat = chats[s.target % chats.length];
                  const [m] = await newMessage(s.writer, chat.id);
                  lock(s.writer, `chat:${chat.id}`, `msg:${m.id}`);
                } else if (s.kind === 'edit' && messages.length) {
                  const m = messages[s.target % messages.length];
                  await clients[s.writer].query(`UPDATE chat_messages SET text = md5(random()::text), edited_at = now() WHERE id = $1`, [
                    m.id,
                  ]);
                  lock(s.writer, `msg:${m.id}`, `chat:${m.chat}`);
                } else if (s.kind === 'move' && messages.length && chats.length) {
                  const [m, to] = [messages[s.target % messages.length], chats[s.to % chats.length]];
                  await clients[s.writer].query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [m.id, to.id]);
                  lock(s.writer, `msg:${m.id}`, `chat:${m.chat}`, `chat:${to.id}`);
                } else if (s.kind === 'remove' && chats.length) {
                  const chat = chats[s.target % chats.length];
                  const inside = await seen(s.writer, 'SELECT id::text FROM chat_messages WHERE conversation_id = $1', [chat.id]);
                  if (!free(s.writer, ...inside.map((m) => `msg:${m.id}`))) continue;
                  await clients[s.writer].query('DELETE FROM chat_conversations WHERE id = $1', [chat.id]);
                  lock(s.writer, `chat:${chat.id}`, ...inside.map((m) => `msg:${m.id}`));
                }
              }
            }
            for (let w = 0; w < WRITERS; w++) if (open[w]) await clients[w].query(w % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
            // Every writer has finished: following the feed, the copy becomes what the routes show.
            let truth: Copy = new Map();
            await eventually(async () => {
              await apply(copy, await reader.poll(), auth);
              truth = await fullRead(auth);
              return JSON.stringify([...copy].sort()) === JSON.stringify([...truth].sort());
            }, 60_000).catch(() => undefined);
            expect([...copy].sort()).toEqual([...truth].sort());
          }),
          { numRuns: Number(process.env.FEED_RUNS ?? 25), endOnFailure: true, ...replay() },
        );
      } finally {
        for (const c of clients) {
          await c.query('ROLLBACK').catch(() => undefined);
          await c.end();
        }
      }
    }, 600_000);

    it('names where a message is now in every entry served after it moved, when a transaction that started first moves what a later one created', async () => {
      const [early, late] = await Promise.all([ownerClient(), ownerClient()]);
      try {
        const tenant = await createCompany(db);
        const owner = await new RecordingsFactory(db, tenant.id).user();
        const auth = `Bearer ${await tokenFor(http(), await createClient(db, tenant, { scopes: ['chat.read', 'chat.content.read'] }))}`;
        const reader = new FeedReader(http, auth.slice('Bearer '.length));
        const [a, b] = [await insertChat(late, tenant.id, owner.id), await insertChat(late, tenant.id, owner.id)];
        // `early` takes its transaction id first; `late` then creates a message in B and commits;
        // `early` moves it to A and commits. The feed sorts by transaction id: `late`'s entry last.
        await early.query('BEGIN');
        await early.query('SELECT pg_current_xact_id()');
        const m = await insertMessage(late, tenant.id, b.id);
        await early.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [m.id, a.id]);
        await early.query('COMMIT');

        const entries = (await reader.poll()).filter((e) => e.object_id === m.publicId);
        expect(entries.map((e) => e.action)).toEqual(['updated', 'created']);
        expect(entries.map((e) => e.parent_id)).toEqual([a.publicId, a.publicId]);
        // The recipe applied to them holds the message where the routes show it.
        const copy: Copy = new Map();
        await apply(copy, reader.seen, auth);
        expect([...copy].sort()).toEqual([...(await fullRead(auth))].sort());
        expect(copy.get(`chat_message:${m.publicId}`)).toContain(`"chat":"${a.publicId}"`);
      } finally {
        await early.query('ROLLBACK').catch(() => undefined);
        await Promise.all([early.end(), late.end()]);
      }
    });
  });

  it('keeps every object changed since an old cursor through compaction, one entry per object left', async () => {
    const reader = await readerFromNow();
    const made: Ref[] = [];
    for (let i = 0; i < 5; i++) made.push(await people.recording('meeting', { owner: seller }));
    for (const round of [1, 2, 3]) {
      for (const m of made) await db.query(`UPDATE recordings SET title = $2 WHERE id = $1`, [m.id, `Rodada ${round}`]);
    }
    const entriesOf = async () =>
      db.query(`SELECT object_id, count(*)::int AS n FROM change_log WHERE object_id = ANY ($1) GROUP BY 1`, [made.map((m) => m.publicId)]);
    expect((await entriesOf()).every((r: { n: number }) => r.n === 4)).toBe(true);
    await app.get(ChangeCompaction).compact(future());
    expect(await entriesOf()).toEqual(expect.arrayContaining(made.map((m) => ({ object_id: m.publicId, n: 1 }))));
    // The survivor says "read it all": the cursor from before also missed the creation.
    const got = await reader.poll();
    expect(new Set(idsOf(got))).toEqual(new Set(made.map((m) => m.publicId)));
    expect(got.every((e) => e.action === 'created' && e.changed.length === 0)).toBe(true);
  });

  it('merges older entries into the newest one so that it covers what they said: with the creation merged, read it all', async () => {
    const reader = await readerFromNow();
    const m = await people.recording('meeting', { owner: seller, transcript: 'original', evaluation: 'completed' });
    await reader.poll(); // past its creation
    await db.query(`UPDATE recording_evaluations SET justification = 'a' WHERE recording_id = $1`, [m.id]);
    await db.query(`UPDATE transcripts SET utterances = '[]' WHERE recording_id = $1`, [m.id]);
    await db.query(`UPDATE recordings SET title = 'b' WHERE id = $1`, [m.id]);
    await app.get(ChangeCompaction).compact(future());
    const left = await db.query(`SELECT action, changed FROM change_log WHERE object_id = $1`, [m.publicId]);
    expect(left).toEqual([{ action: 'created', changed: [] }]);
    // A reader that had seen the creation but not the updates is told to read it all: more than it needs, never less.
    expect(await reader.poll()).toEqual([expect.objectContaining({ object_id: m.publicId, action: 'created', changed: [] })]);
  });

  describe('one compactor at a time', () => {
    const LOCK = `hashtext('change_log compaction')`;

    it('skips its turn while another holds the compaction lock, and does the work once it is released', async () => {
      const m = await people.recording('meeting', { owner: seller });
      await db.query(`UPDATE recordings SET title = 'x' WHERE id = $1`, [m.id]);
      const holder = await ownerClient();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
        expect(await app.get(ChangeCompaction).compact(future())).toEqual({ merged: 0, batches: 0, busy: true });
        await holder.query('COMMIT');
        const run = await app.get(ChangeCompaction).compact(future());
        expect(run).toMatchObject({ busy: false });
        expect(run.merged).toBeGreaterThanOrEqual(1);
      } finally {
        await holder.end();
      }
    });

    it('compacts once when two processes run changes:compact at the same time', async () => {
      const made: Ref[] = [];
      for (let i = 0; i < 40; i++) made.push(await people.recording('meeting', { owner: seller }));
      for (const m of made) await db.query(`UPDATE recordings SET title = 'y' WHERE id = $1`, [m.id]);
      await app.get(ChangeCompaction).compact(future()); // everything older is compacted: only these 40 are left to merge
      for (const m of made) await db.query(`UPDATE recordings SET title = 'z' WHERE id = $1`, [m.id]);
      const before = future().toISOString();
      const runs = await Promise.all([1, 2].map(() => runCli({}, 'changes:compact', '--before', before, '--json')));
      const results = runs.map((r) => {
        expect(r.code).toBe(0);
        return JSON.parse(r.stdout.trim()) as { merged: number; busy: boolean };
      });
      // Each batch ran under the lock in one process; together they merged each object once.
      expect(results.reduce((sum, r) => sum + r.merged, 0)).toBe(made.length);
      const left = await db.query(`SELECT count(*)::int AS n FROM change_log WHERE object_id = ANY ($1)`, [made.map((m) => m.publicId)]);
      expect(left[0].n).toBe(made.length);
    });
  });
});
