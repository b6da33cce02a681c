import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { CAPTURED_TABLES, REFERENCED_ONLY } from '../../src/changes/capture-sql';
import { KEY_BACKFILL } from '../../src/database/migrations/1765100000000-lean-change-capture';
import { ChatRef, ConversationsFactory, MailboxRef } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { ownerDataSource } from '../support/test-app';

/**
 * The change log's capture, table by table. The tables come from the catalog: every table with
 * a `company_id` (a tenant table) must be either captured, with a write here that shows which
 * entry it produces, or excluded below with a reason. A new tenant table without a trigger and
 * a scenario fails this spec.
 */

/** Tenant tables that no route shows, so no change of theirs is a change of an object. */
const NOT_SHOWN: Record<string, string> = {
  api_clients: 'credentials, never read by a route',
  client_secrets: 'credentials, never read by a route',
  change_log: 'the log itself',
  recording_documents: 'the read model: a copy of what the other tables show, kept from the log',
  conversation_documents: 'the read model of conversations: a copy of what the other tables show, kept from the log',
  webhook_endpoints:
    'the integrator’s own configuration of where changes are sent (/v1/webhook-endpoints), not conversation data the feed reports',
  idempotency_keys: 'the first answers of creates sent with an Idempotency-Key, kept 24 h, not conversation data',
};

interface Expected {
  object: string;
  object_id: string;
  action: 'created' | 'updated' | 'deleted';
  changed: string[];
  parent_id?: string | null;
}

describe('change capture: every tenant table a route shows', () => {
  let db: DataSource;
  let company: Company;
  let seller: UserRef;
  let meeting: Ref;
  let team: Ref;
  let template: Awaited<ReturnType<RecordingsFactory['template']>>;
  let tag: Ref;
  let competitor: Ref;
  let skill: Ref;
  let account: Ref;
  let email: { conversation: Ref; messages: Ref[] };
  let mailbox: MailboxRef;
  let chat: ChatRef;

  beforeAll(async () => {
    db = await ownerDataSource();
    company = await createCompany(db);
    const people = new RecordingsFactory(db, company.id);
    const conversations = new ConversationsFactory(db, company.id);
    seller = await people.user({ name: 'Ana', email: `ana.${company.publicId.slice(4, 12)}@empresa.com.br` });
    team = await people.team();
    await people.membership(seller, team, 'participant', true);
    template = await people.template([{ text: 'Orçamento?', type: 'text' }]);
    [tag, competitor, skill, account] = [await people.tag(), await people.competitor(), await people.skill(), await people.account()];
    meeting = await people.recording('meeting', {
      owner: seller,
      template,
      tags: [tag],
      competitors: [competitor],
      accounts: [account],
      enablement: { speakers: [seller] },
      skillScores: [{ user: seller, skill, score: 80 }],
      transcript: 'original',
      evaluation: 'completed',
    });
    mailbox = await conversations.mailbox(seller);
    email = await conversations.thread(
      await conversations.mailbox(seller, `outra.${company.publicId.slice(4, 12)}@empresa.com.br`),
      2,
      new Date(),
    );
    await conversations.emailAccounts(email.conversation, [account]);
    chat = await conversations.chat({ seller, accounts: [account], messages: [{ sentAt: new Date(), text: 'Oi' }] });
  });
  afterAll(() => db.destroy());

  /** Runs `sql` in its own transaction; the entries that transaction logged. */
  async function entriesOf(sql: string, params: unknown[] = []): Promise<Expected[]> {
    const xid = await db.transaction(async (m) => {
      await m.query(sql, params);
      const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
      return xid as string;
    });
    return db.query(`SELECT object, object_id, action, changed, parent_id FROM change_log WHERE company_id = $1 AND xid = $2::xid8`, [
      company.id,
      xid,
    ]);
  }

  const updated = (object: string, ref: Ref, changed: string[] = ['details']): Expected => ({
    object,
    object_id: ref.publicId,
    action: 'updated',
    changed,
  });

  /** One write per captured table, and the entries it must produce. */
  const SCENARIOS: Record<string, () => [sql: string, params: unknown[], expected: Expected[]]> = {
    users: () => [`UPDATE users SET name = 'Ana Maria' WHERE id = $1`, [seller.id], [updated('meeting', meeting), updated('chat', chat)]],
    teams: () => [`UPDATE teams SET name = 'Time Novo' WHERE id = $1`, [team.id], [updated('meeting', meeting), updated('chat', chat)]],
    team_memberships: () => [
      `UPDATE team_memberships SET role = 'leadership' WHERE user_id = $1`,
      [seller.id],
      [updated('meeting', meeting)],
    ],
    templates: () => [`UPDATE templates SET name = 'Roteiro 2' WHERE id = $1`, [template.id], [updated('meeting', meeting)]],
    template_questions: () => [
      `UPDATE template_questions SET text = 'Qual o orçamento?' WHERE id = $1`,
      [template.questions[0].id],
      [updated('meeting', meeting, ['details', 'answers'])],
    ],
    tags: () => [`UPDATE tags SET name = 'quente' WHERE id = $1`, [tag.id], [updated('meeting', meeting)]],
    competitors: () => [`UPDATE competitors SET name = 'Rival' WHERE id = $1`, [competitor.id], [updated('meeting', meeting)]],
    skills: () => [`UPDATE skills SET name = 'Escuta' WHERE id = $1`, [skill.id], [updated('meeting', meeting)]],
    accounts: () => [
      `UPDATE accounts SET domain = 'novo.com.br' WHERE id = $1`,
      [account.id],
      [updated('meeting', meeting), updated('email', email.conversation), updated('chat', chat)],
    ],
    recordings: () => [`UPDATE recordings SET title = 'Outro título' WHERE id = $1`, [meeting.id], [updated('meeting', meeting)]],
    recording_tags: () => [`DELETE FROM recording_tags WHERE recording_id = $1`, [meeting.id], [updated('meeting', meeting)]],
    recording_competitors: () => [`DELETE FROM recording_competitors WHERE recording_id = $1`, [meeting.id], [updated('meeting', meeting)]],
    recording_accounts: () => [`DELETE FROM recording_accounts WHERE recording_id = $1`, [meeting.id], [updated('meeting', meeting)]],
    recording_answers: () => [
      `UPDATE recording_answers SET answer = 'R$ 5 mil' WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting, ['details', 'answers'])],
    ],
    recording_evaluations: () => [
      `UPDATE recording_evaluations SET justification = 'Revista' WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting, ['details', 'evaluation'])],
    ],
    recording_enablements: () => [
      `UPDATE recording_enablements SET next_steps = 'Proposta' WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting)],
    ],
    recording_speaking_durations: () => [
      `UPDATE recording_speaking_durations SET duration_seconds = duration_seconds + 1 WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting)],
    ],
    recording_skill_scores: () => [
      `UPDATE recording_skill_scores SET score = 90 WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting)],
    ],
    transcripts: () => [
      `UPDATE transcripts SET utterances = '[]' WHERE recording_id = $1`,
      [meeting.id],
      [updated('meeting', meeting, ['details', 'transcript'])],
    ],
    mailboxes: () => [
      `UPDATE mailboxes SET owner_id = NULL WHERE id IN (SELECT mailbox_id FROM email_conversation_mailboxes WHERE conversation_id = $1)`,
      [email.conversation.id],
      [updated('email', email.conversation)],
    ],
    email_conversations: () => [
      `UPDATE email_conversations SET subject = 'Re: proposta' WHERE id = $1`,
      [email.conversation.id],
      [updated('email', email.conversation)],
    ],
    email_conversation_mailboxes: () => [
      `INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) VALUES ($1, $2, $3)`,
      [company.id, email.conversation.id, mailbox.id],
      [updated('email', email.conversation)],
    ],
    email_participants: () => [
      `UPDATE email_participants SET name = 'Cliente' WHERE conversation_id = $1`,
      [email.conversation.id],
      [updated('email', email.conversation)],
    ],
    email_conversation_accounts: () => [
      `DELETE FROM email_conversation_accounts WHERE conversation_id = $1`,
      [email.conversation.id],
      [updated('email', email.conversation)],
    ],
    email_messages: () => [
      `UPDATE email_messages SET snippet = 'Segue' WHERE id = $1`,
      [email.messages[0].id],
      [{ ...updated('email_message', email.messages[0]), parent_id: email.conversation.publicId }],
    ],
    chat_conversations: () => [`UPDATE chat_conversations SET contact_name = 'Bruno' WHERE id = $1`, [chat.id], [updated('chat', chat)]],
    chat_conversation_accounts: () => [
      `DELETE FROM chat_conversation_accounts WHERE conversation_id = $1`,
      [chat.id],
      [updated('chat', chat)],
    ],
    chat_messages: () => [
      `UPDATE chat_messages SET text = 'Olá', edited_at = now() WHERE id = $1`,
      [chat.messages[0].id],
      [{ ...updated('chat_message', chat.messages[0]), parent_id: chat.publicId }],
    ],
  };

  let tenantTables: string[];
  beforeAll(async () => {
    const rows: Array<{ name: string }> = await db.query(`
      SELECT c.relname AS name FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped)
      ORDER BY 1`);
    tenantTables = rows.map((r) => r.name);
  });

  it('finds the tenant tables in the catalog, and each is either captured or excluded with a reason', () => {
    expect(tenantTables.length).toBeGreaterThan(25);
    expect(tenantTables.filter((t) => !(t in NOT_SHOWN) && !(t in SCENARIOS))).toEqual([]);
    expect(Object.keys(SCENARIOS).filter((t) => !tenantTables.includes(t))).toEqual([]);
  });

  /** The change triggers of each table, by name. */
  async function changeTriggers(): Promise<Map<string, string[]>> {
    const rows: Array<{ table: string; name: string }> = await db.query(
      `SELECT c.relname AS table, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE NOT t.tgisinternal AND t.tgname LIKE '%\\_changes\\_%' ORDER BY 2`,
    );
    const byTable = new Map<string, string[]>();
    for (const r of rows) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r.name]);
    return byTable;
  }

  it('has the three change triggers (insert, update, delete) on every captured table, the update one only on shared rows', async () => {
    const triggers = await changeTriggers();
    for (const table of tenantTables.filter((t) => !(t in NOT_SHOWN)))
      expect([table, triggers.get(table)]).toEqual([
        table,
        // Users keep an insert trigger that only notes their ids (for their memberships); mailboxes
        // one that only locks their owner (they attach it: src/changes/shared-rows.ts).
        table === 'users' || table === 'mailboxes'
          ? [`${table}_changes_insert`, `${table}_changes_update`]
          : REFERENCED_ONLY.includes(table)
            ? [`${table}_changes_update`]
            : [`${table}_changes_delete`, `${table}_changes_insert`, `${table}_changes_update`],
      ]);
  });

  it('reaches every shared row without an insert trigger only through foreign keys from tables whose writes are logged', async () => {
    // Why an insert or delete of such a row needs no entry: a new row is shown by nothing until
    // a row referencing it is written (logged by that row's trigger), and a delete either
    // cascades to the referencing rows (their delete trigger), sets their reference (their
    // update trigger) or is refused.
    const triggers = await changeTriggers();
    const keys: Array<{ referenced: string; referencing: string; on_delete: string }> = await db.query(
      `SELECT confrelid::regclass::text AS referenced, conrelid::regclass::text AS referencing, confdeltype AS on_delete
       FROM pg_constraint WHERE contype = 'f' AND confrelid::regclass::text = ANY ($1) ORDER BY 1, 2`,
      [REFERENCED_ONLY],
    );
    expect([...new Set(keys.map((k) => k.referenced))].sort()).toEqual([...REFERENCED_ONLY].sort());
    for (const key of keys) {
      const logged = triggers.get(key.referencing) ?? [];
      expect([key, logged]).toEqual([key, expect.arrayContaining([`${key.referencing}_changes_update`])]);
      if (key.on_delete === 'c' && !REFERENCED_ONLY.includes(key.referencing))
        expect([key, logged]).toEqual([key, expect.arrayContaining([`${key.referencing}_changes_delete`])]);
    }
  });

  it('logs nothing for a new shared row, and the object it starts showing when a link to it is written', async () => {
    expect(
      await entriesOf(`INSERT INTO tags (public_id, company_id, name) VALUES (app_public_id('tag_'), $1, 'novo')`, [company.id]),
    ).toEqual([]);
    const linked = await entriesOf(
      `WITH t AS (INSERT INTO tags (public_id, company_id, name) VALUES (app_public_id('tag_'), $1, 'outro') RETURNING id)
       INSERT INTO recording_tags (company_id, recording_id, tag_id) SELECT $1, $2, id FROM t`,
      [company.id, meeting.id],
    );
    expect(linked).toEqual([{ ...updated('meeting', meeting), parent_id: null }]);
    // A new user's membership changes nothing yet; an existing user's shows on what shows the user.
    const joined = `WITH u AS (INSERT INTO users (public_id, company_id, name, email) VALUES (app_public_id('usr_'), $1, 'Nova', $2) RETURNING id)
      INSERT INTO team_memberships (company_id, user_id, team_id, role, is_default) SELECT $1, id, $3, 'participant', false FROM u`;
    expect(await entriesOf(joined, [company.id, `nova.${company.publicId.slice(4, 12)}@empresa.com.br`, team.id])).toEqual([]);
    const other = await new RecordingsFactory(db, company.id).team('Outro');
    expect(
      await entriesOf(
        `INSERT INTO team_memberships (company_id, user_id, team_id, role, is_default) VALUES ($1, $2, $3, 'participant', false)`,
        [company.id, seller.id, other.id],
      ),
    ).toEqual(
      expect.arrayContaining([
        { ...updated('meeting', meeting), parent_id: null },
        { ...updated('chat', chat), parent_id: null },
      ]),
    );
  });

  it('logs the parts of a record created earlier in the same transaction with its created entry only, and no others', async () => {
    const runner = db.createQueryRunner();
    await runner.connect();
    const other = db.createQueryRunner();
    await other.connect();
    try {
      const people = (r: typeof runner) => new RecordingsFactory(r.manager, company.id);
      await runner.startTransaction();
      const first = await people(runner).recording('meeting', { owner: seller });
      // Another transaction takes the next id and commits: it lies between this transaction's records.
      const between = await people(other).recording('meeting', { owner: seller });
      await other.release(); // the test's pool holds two connections
      const last = await people(runner).recording('meeting', { owner: seller });
      expect([Number(first.id) < Number(between.id), Number(between.id) < Number(last.id)]).toEqual([true, true]);
      for (const r of [first, between, last])
        await runner.query(`INSERT INTO recording_tags (company_id, recording_id, tag_id) VALUES ($1, $2, $3)`, [company.id, r.id, tag.id]);
      const [{ xid }] = await runner.query('SELECT pg_current_xact_id()::text AS xid');
      await runner.commitTransaction();
      const logged = await db.query(`SELECT object_id, action, changed FROM change_log WHERE xid = $1::xid8 ORDER BY seq`, [xid]);
      expect(logged).toEqual([
        { object_id: first.publicId, action: 'created', changed: [] },
        { object_id: last.publicId, action: 'created', changed: [] },
        { object_id: between.publicId, action: 'updated', changed: ['details'] },
      ]);
      // The next transaction of the same session knows nothing of the previous one's records.
      const next = await runner.manager.transaction(async (m) => {
        await m.query(`DELETE FROM recording_tags WHERE recording_id = $1`, [last.id]);
        const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
        return xid as string;
      });
      expect(await db.query(`SELECT object_id, action, changed FROM change_log WHERE xid = $1::xid8`, [next])).toEqual([
        { object_id: last.publicId, action: 'updated', changed: ['details'] },
      ]);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
      if (!other.isReleased) await other.release();
    }
  });

  it.each(Object.keys(SCENARIOS))('logs the right entries for a write to %s', async (table) => {
    const [sql, params, expected] = SCENARIOS[table]();
    const entries = await entriesOf(sql, params);
    for (const e of expected) expect(entries).toContainEqual(expect.objectContaining(e));
    // One entry per object per transaction.
    expect(new Set(entries.map((e) => `${e.object}:${e.object_id}`)).size).toBe(entries.length);
  });

  it('moves a record’s updated_at with a change to one of its parts, and logs an update of updated_at alone (the route shows it)', async () => {
    const [before] = await db.query('SELECT updated_at FROM recordings WHERE id = $1', [meeting.id]);
    await entriesOf(`UPDATE recording_skill_scores SET score = 70 WHERE recording_id = $1`, [meeting.id]);
    const [after] = await db.query('SELECT updated_at FROM recordings WHERE id = $1', [meeting.id]);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(await entriesOf(`UPDATE recordings SET updated_at = updated_at + interval '1 second' WHERE id = $1`, [meeting.id])).toEqual([
      { ...updated('meeting', meeting), parent_id: null },
    ]);
  });

  it('names every part changed in one transaction, whatever the order (the record updated first, then a part)', async () => {
    const entries = await db.transaction(async (m) => {
      await m.query(`UPDATE recordings SET title = 'Primeiro' WHERE id = $1`, [meeting.id]);
      await m.query(`UPDATE transcripts SET utterances = '[{"x": 2}]' WHERE recording_id = $1`, [meeting.id]);
      await m.query(`UPDATE recording_evaluations SET justification = 'Depois' WHERE recording_id = $1`, [meeting.id]);
      const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
      return xid as string;
    });
    expect(await db.query(`SELECT action, changed FROM change_log WHERE xid = $1::xid8`, [entries])).toEqual([
      { action: 'updated', changed: ['details', 'transcript', 'evaluation'] },
    ]);
  });

  it('merges the writes of one transaction to one object into one entry: created stays created, deleted wins', async () => {
    const inOneTransaction = (work: (m: DataSource['manager']) => Promise<Ref>) =>
      db.transaction(async (m) => {
        const ref = await work(m);
        const [{ xid }] = await m.query('SELECT pg_current_xact_id()::text AS xid');
        return { ref, xid: xid as string };
      });
    const entriesIn = (xid: string) => db.query(`SELECT object_id, action, changed FROM change_log WHERE xid = $1::xid8`, [xid]);
    const made = await inOneTransaction(async (m) => {
      const call = await new RecordingsFactory(m, company.id).recording('call', {
        owner: seller,
        transcript: 'original',
        evaluation: 'completed',
      });
      await m.query(`UPDATE recordings SET title = 'x' WHERE id = $1`, [call.id]);
      return call;
    });
    expect(await entriesIn(made.xid)).toEqual([{ object_id: made.ref.publicId, action: 'created', changed: [] }]);
    const removed = await inOneTransaction(async (m) => {
      await m.query(`UPDATE recordings SET title = 'z' WHERE id = $1`, [made.ref.id]);
      await m.query(`DELETE FROM recordings WHERE id = $1`, [made.ref.id]);
      return made.ref;
    });
    expect(await entriesIn(removed.xid)).toEqual([{ object_id: made.ref.publicId, action: 'deleted', changed: [] }]);
  });

  it('builds every change row of every capture with its object row’s id', () => {
    for (const capture of CAPTURED_TABLES) {
      const sql = capture.fn;
      const rows = sql.match(/::change_row/g) ?? [];
      const keyed = sql.match(/ROW\((\w+)\.company_id,[^;]*?, \1\.id\)::change_row/g) ?? [];
      expect([capture.table, keyed.length]).toEqual([capture.table, rows.length]);
    }
  });

  it('gives the entries logged before object keys existed their row’s id, and each removed object a negative key of its own', async () => {
    const people = new RecordingsFactory(db, company.id);
    const kept = await people.recording('meeting', { owner: seller });
    await db.query(`UPDATE recordings SET title = 'editado' WHERE id = $1`, [kept.id]);
    const removed = [await people.recording('call', { owner: seller }), await people.recording('call', { owner: seller })];
    for (const r of removed) {
      await db.query(`UPDATE recordings SET title = 'editado' WHERE id = $1`, [r.id]);
      await db.query(`DELETE FROM recordings WHERE id = $1`, [r.id]);
    }
    const keysOf = (m: DataSource['manager']) =>
      m.query(`SELECT object_id, object_key::text AS key, action FROM change_log WHERE company_id = $1 ORDER BY xid, seq`, [
        company.id,
      ]) as Promise<Array<{ object_id: string; key: string; action: string }>>;
    const before = await keysOf(db.manager);
    expect(before.filter((e) => e.object_id === kept.publicId).map((e) => e.key)).toEqual([kept.id, kept.id]);
    const after = await db
      .transaction(async (m) => {
        await m.query(`ALTER TABLE change_log ALTER COLUMN object_key DROP NOT NULL`);
        await m.query(`UPDATE change_log SET object_key = NULL WHERE company_id = $1`, [company.id]);
        for (const sql of KEY_BACKFILL) await m.query(sql);
        const keys = await keysOf(m);
        throw Object.assign(new Error('roll back'), { keys });
      })
      .catch((e: { keys?: Awaited<ReturnType<typeof keysOf>> }) => e.keys!);
    // Every object still there gets its row's id back (the meeting here, and whatever this spec made before).
    const rows: Array<{ public_id: string }> = await db.query(
      ['recordings', 'email_conversations', 'email_messages', 'chat_conversations', 'chat_messages']
        .map((table) => `SELECT public_id FROM ${table} WHERE company_id = $1`)
        .join(' UNION ALL '),
      [company.id],
    );
    const live = (e: { object_id: string }) => rows.some((r) => r.public_id === e.object_id);
    expect(after.filter(live)).toEqual(before.filter(live));
    expect(after.filter(live).length).toBeGreaterThan(10);
    expect(after.filter((e) => e.object_id === kept.publicId).map((e) => e.key)).toEqual([kept.id, kept.id]);
    const removedKeys = removed.map((r) => [...new Set(after.filter((e) => e.object_id === r.publicId).map((e) => e.key))]);
    expect(removedKeys.map((keys) => [keys.length, Number(keys[0]) < 0])).toEqual([
      [1, true],
      [1, true],
    ]);
    expect(removedKeys[0][0]).not.toEqual(removedKeys[1][0]);
    expect(await keysOf(db.manager)).toEqual(before);
  });
});
