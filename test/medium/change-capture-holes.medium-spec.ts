import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { CAPTURED_TABLES } from '../../src/changes/capture-sql';
import { positionAt } from '../../src/changes/changes.repository';
import { mintId } from '../../src/common/ids/public-id';
import { Company } from '../../src/companies/company.entity';
import { ChatRef, ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { compactEverything, ownerDataSource } from '../support/test-app';

/**
 * The holes a review found in change capture, one test each: every way a row leaves a route
 * says `deleted`, a moved message names where it is, a write either is captured or refused.
 * Each of these failed before the capture of src/changes/capture-sql.ts.
 */

interface Entry {
  object: string;
  object_id: string;
  parent_id: string | null;
  action: string;
  changed: string[];
}

describe('change capture: the holes', () => {
  let db: DataSource;
  let company: Company;
  let people: RecordingsFactory;
  let conversations: ConversationsFactory;
  let seller: UserRef;

  beforeAll(async () => {
    db = await ownerDataSource();
    company = await createCompany(db);
    people = new RecordingsFactory(db, company.id);
    conversations = new ConversationsFactory(db, company.id);
    seller = await people.user({ name: 'Bia', email: `bia.${company.publicId.slice(4, 12)}@empresa.com.br` });
  });

  afterAll(() => db.destroy());

  /** Runs `work` in one transaction; the entries it logged, in the feed's order. */
  async function logged(work: (m: EntityManager) => Promise<unknown>): Promise<Entry[]> {
    const xid = await db.transaction(async (m) => {
      await work(m);
      const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
      return xid as string;
    });
    return db.query(
      `SELECT object, object_id, parent_id, action, changed FROM change_log WHERE company_id = $1 AND xid = $2::xid8 ORDER BY seq`,
      [company.id, xid],
    );
  }

  const sorted = (entries: Entry[]) => [...entries].sort((a, b) => `${a.object}${a.object_id}`.localeCompare(`${b.object}${b.object_id}`));

  async function emailThread(messages = 3) {
    const mailbox = await conversations.mailbox(seller, `caixa.${Math.random().toString(36).slice(2, 10)}@empresa.com.br`);
    return conversations.thread(mailbox, messages, new Date(Date.now() - 3_600_000));
  }

  function chat(messages = 3): Promise<ChatRef> {
    return conversations.chat({ seller, messages: Array.from({ length: messages }, (_, i) => ({ text: `oi ${i}` })) });
  }

  describe('a conversation removed with its messages (ON DELETE CASCADE)', () => {
    it('tells every email message deleted, with its conversation', async () => {
      const thread = await emailThread(3);
      const entries = await logged((m) => m.query('DELETE FROM email_conversations WHERE id = $1', [thread.conversation.id]));
      expect(sorted(entries)).toEqual(
        sorted([
          { object: 'email', object_id: thread.conversation.publicId, parent_id: null, action: 'deleted', changed: [] },
          ...thread.messages.map((message) => ({
            object: 'email_message',
            object_id: message.publicId,
            parent_id: thread.conversation.publicId,
            action: 'deleted',
            changed: [],
          })),
        ]),
      );
    });

    it('tells every chat message deleted, with its conversation', async () => {
      const conversation = await chat(4);
      const entries = await logged((m) => m.query('DELETE FROM chat_conversations WHERE id = $1', [conversation.id]));
      expect(sorted(entries)).toEqual(
        sorted([
          { object: 'chat', object_id: conversation.publicId, parent_id: null, action: 'deleted', changed: [] },
          ...conversation.messages.map((message) => ({
            object: 'chat_message',
            object_id: message.publicId,
            parent_id: conversation.publicId,
            action: 'deleted',
            changed: [],
          })),
        ]),
      );
    });

    it('tells a message written and its conversation removed in one transaction deleted too', async () => {
      const conversation = await chat(1);
      const entries = await logged(async (m) => {
        const added = await new ConversationsFactory(m, company.id).chatMessage(conversation, { text: 'tarde demais' });
        await m.query('DELETE FROM chat_conversations WHERE id = $1', [conversation.id]);
        return added;
      });
      expect(entries.filter((e) => e.object === 'chat_message').map((e) => e.action)).toEqual(['deleted', 'deleted']);
    });
  });

  it('tells deleted only the messages the cascade removes: one a concurrent transaction moves out lives on', async () => {
    const [from, to] = [await chat(2), await chat(1)];
    const mover = db.createQueryRunner();
    const remover = db.createQueryRunner();
    await Promise.all([mover.connect(), remover.connect()]);
    try {
      await mover.startTransaction();
      await mover.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [from.messages[0].id, to.id]);
      await remover.startTransaction();
      // Waits on the moved message's lock inside the conversation's BEFORE DELETE trigger.
      const removing = remover.query('DELETE FROM chat_conversations WHERE id = $1', [from.id]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await mover.commitTransaction();
      await removing;
      await remover.commitTransaction();
    } finally {
      await Promise.all([mover.release(), remover.release()]);
    }
    const told: Entry[] = await db.query(
      `SELECT object, object_id, parent_id, action, changed FROM change_log WHERE company_id = $1 AND object_id = $2 ORDER BY epoch, xid, seq`,
      [company.id, from.messages[0].publicId],
    );
    expect(told.map((e) => e.action)).not.toContain('deleted');
    expect(told[told.length - 1]).toMatchObject({ parent_id: to.publicId });
    expect(await db.query('SELECT count(*)::int AS n FROM chat_messages WHERE id = $1', [from.messages[0].id])).toEqual([{ n: 1 }]);
    const removed: Entry[] = await db.query(`SELECT action FROM change_log WHERE company_id = $1 AND object_id = $2`, [
      company.id,
      from.messages[1].publicId,
    ]);
    expect(removed.map((e) => e.action)).toContain('deleted');
  });

  describe('a record that changes kind or company', () => {
    /** Makes record `id` a `kind` in `m`, with a new id of that kind (a call is served under a call id only); the new id. */
    async function makeKind(m: { query: (sql: string, params: unknown[]) => Promise<unknown> }, id: string, kind: 'meeting' | 'call') {
      const publicId = mintId(kind);
      await m.query(
        `UPDATE recordings SET kind = $2, bot_history = CASE $2 WHEN 'meeting' THEN '[]'::jsonb END, public_id = $3 WHERE id = $1`,
        [id, kind, publicId],
      );
      return publicId;
    }

    it('is deleted from the route it left (old id) and created in the one it joined (new id), and its document stays (emptied)', async () => {
      const meeting = await people.recording('meeting', { owner: seller });
      await db.query(
        `INSERT INTO recording_documents (recording_id, company_id, format, document) VALUES ($1, $2, 1, '{}')
        ON CONFLICT (recording_id) DO UPDATE SET format = 1, document = '{}'`,
        [meeting.id, company.id],
      );
      let callId = '';
      const entries = await logged(async (m) => (callId = await makeKind(m, meeting.id, 'call')));
      expect(sorted(entries)).toEqual([
        { object: 'call', object_id: callId, parent_id: null, action: 'created', changed: [] },
        { object: 'meeting', object_id: meeting.publicId, parent_id: null, action: 'deleted', changed: [] },
      ]);
      expect(await db.query('SELECT document FROM recording_documents WHERE recording_id = $1', [meeting.id])).toEqual([
        { document: null },
      ]);
      // And back, a meeting again under a meeting id of its own.
      let againId = '';
      const back = await logged(async (m) => (againId = await makeKind(m, meeting.id, 'meeting')));
      expect(sorted(back)).toEqual([
        { object: 'call', object_id: callId, parent_id: null, action: 'deleted', changed: [] },
        { object: 'meeting', object_id: againId, parent_id: null, action: 'created', changed: [] },
      ]);
    });

    it('refuses a change of kind that keeps an id of the other kind (the call could not be served)', async () => {
      const meeting = await people.recording('meeting', { owner: seller });
      await expect(db.query(`UPDATE recordings SET kind = 'call', bot_history = NULL WHERE id = $1`, [meeting.id])).rejects.toMatchObject({
        driverError: { code: '23514', constraint: 'recordings_public_id_kind' },
      });
    });

    it('sorts right when it goes back in a transaction that started writing before the one that moved it', async () => {
      // T1 takes the lower transaction id; T2 makes the meeting a call and commits; T1 makes it a
      // meeting again. T2's entries sort after T1's: a client replaying the feed must still end
      // holding what the routes show.
      const meeting = await people.recording('meeting', { owner: seller });
      const other = await people.recording('meeting', { owner: seller });
      const t1 = db.createQueryRunner();
      await t1.connect();
      try {
        await t1.startTransaction();
        await t1.query(`UPDATE recordings SET title = 'primeiro' WHERE id = $1`, [other.id]);
        const [{ xid: x1 }] = await t1.query('SELECT pg_current_xact_id()::text AS xid');
        const x2 = await db.transaction(async (m) => {
          await makeKind(m, meeting.id, 'call');
          const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
          return xid as string;
        });
        expect(BigInt(x1)).toBeLessThan(BigInt(x2));
        await makeKind(t1, meeting.id, 'meeting');
        await t1.commitTransaction();
      } finally {
        await t1.release();
      }
      const feed: Entry[] = await db.query(
        `SELECT object, object_id, parent_id, action, changed FROM change_log WHERE company_id = $1 AND object_key = $2 AND object IN ('meeting', 'call') ORDER BY xid, seq`,
        [company.id, meeting.id],
      );
      // A client replaying the feed in order, as the recipe says: created or updated, fetch it
      // (a 404 drops it); deleted, drop it. It must end holding what the routes show.
      const [row] = await db.query('SELECT kind, public_id FROM recordings WHERE id = $1', [meeting.id]);
      const held = new Set<string>([`meeting:${meeting.publicId}`]);
      for (const e of feed) {
        const key = `${e.object}:${e.object_id}`;
        if (e.action === 'deleted' || key !== `${row.kind}:${row.public_id}`) held.delete(key);
        else held.add(key);
      }
      expect([...held]).toEqual([`meeting:${row.public_id}`]);
      expect(row.kind).toBe('meeting');
    });

    it('compacts a record moved away and back to created, and one moved away for good to deleted, each id its own object', async () => {
      const [back, gone] = [await people.recording('meeting', { owner: seller }), await people.recording('meeting', { owner: seller })];
      const [backCall, goneCall] = [await makeKind(db, back.id, 'call'), await makeKind(db, gone.id, 'call')];
      await db.query(`UPDATE recordings SET title = 'de novo' WHERE id = ANY ($1)`, [[back.id, gone.id]]);
      const backAgain = await makeKind(db, back.id, 'meeting');
      await db.query(`UPDATE recordings SET title = 'reunião' WHERE id = $1`, [back.id]);
      const objects = [back.publicId, gone.publicId, backCall, goneCall, backAgain];
      // Compact everything of these objects (a cutoff in the future).
      await compactEverything(db, `now() + interval '1 day'`, 1000);
      const rows: Entry[] = await db.query(
        `SELECT object, object_id, parent_id, action, changed FROM change_log WHERE company_id = $1 AND object_id = ANY ($2) ORDER BY object, object_id`,
        [company.id, objects],
      );
      const of = (object: string, id: string) => rows.filter((e) => e.object === object && e.object_id === id).map((e) => e.action);
      expect(of('meeting', back.publicId)).toEqual(['deleted']);
      expect(of('call', backCall)).toEqual(['deleted']);
      expect(of('meeting', backAgain)).toEqual(['created']);
      expect(of('meeting', gone.publicId)).toEqual(['deleted']);
      expect(of('call', goneCall)).toEqual(['created']);
    });

    it('sorts right when a conversation goes back to its company in a transaction that started writing first', async () => {
      const elsewhere = await createCompany(db);
      const conversation = await chat(1);
      await db.query('DELETE FROM chat_messages WHERE conversation_id = $1', [conversation.id]);
      await db.query('DELETE FROM chat_conversation_accounts WHERE conversation_id = $1', [conversation.id]);
      const [here, there] = [seller.id, (await new RecordingsFactory(db, elsewhere.id).user()).id];
      const t1 = db.createQueryRunner();
      await t1.connect();
      try {
        await t1.startTransaction();
        // Takes the lower transaction id without logging an entry for the conversation: one that
        // had would hold its document (the read model), and the move below would wait for t1
        // (the next test); this is the order that can still happen.
        await t1.query('SELECT pg_current_xact_id()');
        await db.query('UPDATE chat_conversations SET company_id = $2, seller_id = $3 WHERE id = $1', [
          conversation.id,
          elsewhere.id,
          there,
        ]);
        await t1.query('UPDATE chat_conversations SET company_id = $2, seller_id = $3 WHERE id = $1', [conversation.id, company.id, here]);
        await t1.commitTransaction();
      } finally {
        await t1.release();
      }
      const feed: Entry[] = await db.query(
        `SELECT object, object_id, parent_id, action, changed FROM change_log WHERE company_id = $1 AND object_id = $2 ORDER BY epoch, xid, seq`,
        [company.id, conversation.publicId],
      );
      expect(feed[feed.length - 1].action).not.toBe('deleted');
    });

    it('a transaction that logged an entry for a conversation holds its document: another writer of it waits for its commit', async () => {
      const conversation = await chat(1);
      const t1 = db.createQueryRunner();
      const t2 = new Client({ connectionString: process.env.TEST_MIGRATION_DATABASE_URL });
      await Promise.all([t1.connect(), t2.connect()]);
      try {
        await t1.startTransaction();
        await t1.query(`UPDATE users SET name = name WHERE id = $1`, [seller.id]); // logs the conversation updated
        await t2.query(`SET lock_timeout = '300ms'`);
        const write = `UPDATE chat_conversations SET contact_name = 'Outro' WHERE id = ${Number(conversation.id)}`;
        await expect(t2.query(write)).rejects.toThrow(/lock timeout/);
        await t1.commitTransaction();
        await t2.query(write);
        expect(await db.query('SELECT contact_name FROM chat_conversations WHERE id = $1', [conversation.id])).toEqual([
          { contact_name: 'Outro' },
        ]);
      } finally {
        if (t1.isTransactionActive) await t1.rollbackTransaction();
        await Promise.all([t1.release(), t2.end()]);
      }
    });

    it('tells a conversation moved to another company deleted there and created here', async () => {
      const elsewhere = await createCompany(db);
      const conversation = await chat(1);
      await db.query('DELETE FROM chat_messages WHERE conversation_id = $1', [conversation.id]);
      await db.query('DELETE FROM chat_conversation_accounts WHERE conversation_id = $1', [conversation.id]);
      const owner = await new RecordingsFactory(db, elsewhere.id).user();
      const xid = await db.transaction(async (m) => {
        await m.query('UPDATE chat_conversations SET company_id = $2, seller_id = $3 WHERE id = $1', [
          conversation.id,
          elsewhere.id,
          owner.id,
        ]);
        return (await m.query('SELECT pg_current_xact_id()::text AS xid'))[0].xid as string;
      });
      const entries = await db.query(`SELECT company_id::text, object, action FROM change_log WHERE xid = $1::xid8 ORDER BY company_id`, [
        xid,
      ]);
      expect(entries).toEqual(
        [
          { company_id: company.id, object: 'chat', action: 'deleted' },
          { company_id: elsewhere.id, object: 'chat', action: 'created' },
        ].sort((a, b) => Number(a.company_id) - Number(b.company_id)),
      );
    });
  });

  describe('a message moved to another conversation', () => {
    let from: ChatRef;
    let to: ChatRef;
    beforeEach(async () => {
      [from, to] = [await chat(2), await chat(1)];
    });

    const moved = (message: Ref, action = 'updated', changed = ['details']) => ({
      object: 'chat_message',
      object_id: message.publicId,
      parent_id: to.publicId,
      action,
      changed,
    });
    const told = (conversation: Ref) => ({
      object: 'chat',
      object_id: conversation.publicId,
      parent_id: null,
      action: 'updated',
      changed: ['messages'],
    });

    it('names the conversation it is in now, and both conversations are told their messages changed', async () => {
      const entries = await logged((m) =>
        m.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [from.messages[0].id, to.id]),
      );
      expect(sorted(entries)).toEqual(sorted([moved(from.messages[0]), told(from), told(to)]));
    });

    it('names it after an edit earlier in the same transaction', async () => {
      const entries = await logged(async (m) => {
        await m.query(`UPDATE chat_messages SET text = 'editada' WHERE id = $1`, [from.messages[0].id]);
        await m.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [from.messages[0].id, to.id]);
      });
      expect(sorted(entries)).toEqual(sorted([moved(from.messages[0]), told(from), told(to)]));
    });

    it('names it when it was created and moved in one transaction', async () => {
      let added: Ref | undefined;
      const entries = await logged(async (m) => {
        added = await new ConversationsFactory(m, company.id).chatMessage(from, { text: 'nova' });
        await m.query('UPDATE chat_messages SET conversation_id = $2 WHERE id = $1', [added.id, to.id]);
      });
      // The arrival moved `from`'s last message (details) before the message left it.
      expect(sorted(entries)).toEqual(
        sorted([moved(added!, 'created', []), { ...told(from), changed: ['details', 'messages'] }, told(to)]),
      );
    });

    it('names the new conversation for an email message too', async () => {
      const [a, b] = [await emailThread(2), await emailThread(1)];
      const entries = await logged((m) =>
        m.query('UPDATE email_messages SET conversation_id = $2 WHERE id = $1', [a.messages[1].id, b.conversation.id]),
      );
      expect(entries.find((e) => e.object === 'email_message')).toMatchObject({ parent_id: b.conversation.publicId, action: 'updated' });
      expect(entries.filter((e) => e.object === 'email').map((e) => [e.object_id, e.changed])).toEqual(
        expect.arrayContaining([
          [a.conversation.publicId, ['messages']],
          [b.conversation.publicId, ['messages']],
        ]),
      );
    });
  });

  describe('writes that used to leave a stale document or log nothing', () => {
    it('logs an update of updated_at alone and empties the record’s document', async () => {
      const meeting = await people.recording('meeting', { owner: seller });
      await db.query(`UPDATE recording_documents SET format = 1, document = '{}' WHERE recording_id = $1`, [meeting.id]);
      const entries = await logged((m) =>
        m.query(`UPDATE recordings SET updated_at = updated_at + interval '1 minute' WHERE id = $1`, [meeting.id]),
      );
      expect(entries).toEqual([
        { object: 'meeting', object_id: meeting.publicId, parent_id: null, action: 'updated', changed: ['details'] },
      ]);
      expect(await db.query('SELECT document FROM recording_documents WHERE recording_id = $1', [meeting.id])).toEqual([
        { document: null },
      ]);
    });

    it.each(CAPTURED_TABLES.map((c) => c.table))(
      'refuses TRUNCATE of %s (it would log nothing), and says what to do instead',
      async (table) => {
        const runner = db.createQueryRunner();
        await runner.connect();
        try {
          await runner.startTransaction();
          const error = await runner.query(`TRUNCATE ${table} CASCADE`).catch((e: { code?: string; message: string; hint?: string }) => e);
          expect(error).toMatchObject({ code: '0A000', message: expect.stringContaining('not captured by the change feed') });
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      },
    );

    it('captures a writer with session_replication_role = replica (the triggers fire ALWAYS)', async () => {
      const meeting = await people.recording('meeting', { owner: seller });
      const url = Object.assign(new URL(process.env.TEST_SUPER_DATABASE_URL!), {
        pathname: new URL(process.env.TEST_DATABASE_URL!).pathname,
      });
      const su = new Client({ connectionString: url.toString() });
      await su.connect();
      let xid: string;
      try {
        await su.query('BEGIN');
        await su.query('SET LOCAL session_replication_role = replica');
        await su.query(`UPDATE recordings SET title = 'replicado' WHERE id = $1`, [meeting.id]);
        xid = (await su.query('SELECT pg_current_xact_id()::text AS xid')).rows[0].xid;
        await su.query('COMMIT');
      } finally {
        await su.end();
      }
      expect(await db.query(`SELECT object_id, action FROM change_log WHERE xid = $1::xid8`, [xid])).toEqual([
        { object_id: meeting.publicId, action: 'updated' },
      ]);
    });

    it('has every capture trigger enabled ALWAYS', async () => {
      const rows: Array<{ name: string; enabled: string }> = await db.query(
        `SELECT tgname AS name, tgenabled AS enabled FROM pg_trigger
         WHERE NOT tgisinternal AND (tgname LIKE '%\\_changes\\_%' OR tgname LIKE '%refuse\\_truncate' OR tgname LIKE '%messages\\_removed'
           OR tgname IN ('recordings_touch', 'change_log_documents_insert', 'change_log_documents_update'))`,
      );
      expect(rows.length).toBeGreaterThan(60);
      expect(rows.filter((r) => r.enabled !== 'A')).toEqual([]);
    });
  });
  describe('epochs: a new one for every life of the server', () => {
    it('begins one when crash recovery (or a promotion) empties the life marker, numbered after every recorded one and the seconds since 2020', async () => {
      const [{ live: before }] = await db.query('SELECT app_live_change_epoch() AS live');
      const meeting = await people.recording('meeting', { owner: seller });
      await db
        .transaction(async (m) => {
          // As crash recovery leaves it: the unlogged marker empty, the server's start time unchanged.
          await m.query('DELETE FROM change_epoch_life');
          const [{ live }] = await m.query('SELECT app_live_change_epoch() AS live');
          const since2020 = Math.floor(Date.now() / 1000) - 1_577_836_800;
          // Unrecorded yet: the lowest number this life can get, above every recorded one.
          const [{ max }] = await m.query('SELECT max(epoch) AS max FROM change_epochs');
          expect(live).toBe(max + 1);
          expect(live).toBeGreaterThan(before);
          await m.query(`UPDATE recordings SET title = 'depois da queda' WHERE id = $1`, [meeting.id]);
          const [entry] = await m.query(
            `SELECT epoch FROM change_log WHERE company_id = $1 AND object_id = $2 ORDER BY epoch DESC, xid DESC LIMIT 1`,
            [company.id, meeting.publicId],
          );
          expect(entry.epoch).toBeGreaterThanOrEqual(live); // the writer recorded the new life: never below the readers' view
          expect(entry.epoch).toBeGreaterThanOrEqual(since2020 - 5); // and after any epoch a lost timeline may have issued
          const [{ live: after }] = await m.query('SELECT app_live_change_epoch() AS live');
          expect(after).toBe(entry.epoch);
          // Every entry of the earlier life is final now: served whatever its transaction id.
          const [{ pending }] = await m.query(
            `SELECT count(*)::int AS pending FROM change_log c, (SELECT app_live_change_epoch() AS live) h WHERE c.epoch < h.live AND c.company_id = $1 AND c.object_id = $2`,
            [company.id, meeting.publicId],
          );
          expect(pending).toBeGreaterThan(0);
          throw Object.assign(new Error('roll back'), { rolledBack: true }); // leave the shared cluster's epoch as it was
        })
        .catch((error: { rolledBack?: boolean }) => {
          if (!error.rolledBack) throw error;
        });
    });
  });

  describe('an instant as a feed position (horizon marks)', () => {
    const at = (instant: string) => positionAt((sql, params) => db.query(sql, params), instant);

    it('is the horizon of the latest mark at or before the instant: below every transaction still open then', async () => {
      const open = db.createQueryRunner();
      await open.connect();
      try {
        await open.startTransaction();
        await open.query(`UPDATE users SET name = name WHERE id = $1`, [seller.id]);
        const [{ xid }] = await open.query('SELECT pg_current_xact_id()::text AS xid');
        await db.query('SELECT app_mark_change_horizon()');
        const [{ now }] = await db.query('SELECT clock_timestamp() AS now');
        const [, horizon] = await at(now.toISOString());
        expect(BigInt(horizon)).toBeLessThanOrEqual(BigInt(xid));
        await open.commitTransaction();
      } finally {
        await open.release();
      }
      expect(await at('2000-01-01T00:00:00Z')).toEqual(['0', '0', '0']);
    });

    it('keeps one mark an hour past a day', async () => {
      // Two whole hours long ago, a mark every 10 minutes: one each is kept, the first.
      await db.query(`INSERT INTO change_horizons (marked_at, epoch, horizon)
        SELECT timestamptz '2026-01-05 10:00:00Z' + n * interval '10 minutes', 1, '1'::xid8 FROM generate_series(0, 11) n`);
      await db.query('SELECT app_mark_change_horizon()');
      const kept: Array<{ minute: number }> = await db.query(`SELECT extract(minute FROM marked_at)::int AS minute FROM change_horizons
        WHERE marked_at >= '2026-01-05 10:00:00Z' AND marked_at < '2026-01-05 12:00:00Z'`);
      expect(kept).toEqual([{ minute: 0 }, { minute: 0 }]);
    });
  });
});
