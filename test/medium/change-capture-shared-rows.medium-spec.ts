import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CAPTURED_TABLES } from '../../src/changes/capture-sql';
import { PARENTS, SHARED_ROWS } from '../../src/changes/shared-rows';
import { CHAT_CHANNEL } from '../../src/chat/chat-channel';
import { mintId } from '../../src/common/ids/public-id';
import { Company } from '../../src/companies/company.entity';
import { AppConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { OwnerPool } from '../../src/database/owner-pool';
import { EMAIL_CHANNEL } from '../../src/emails/email-channel';
import { Metrics } from '../../src/metrics/metrics';
import { conversationDocumentRefresher } from '../../src/read-model/conversation-documents';
import { DocumentRefresher } from '../../src/read-model/document-refresher';
import { recordingDocumentRefresher } from '../../src/read-model/recording-documents';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { installCaptureUnderTest } from '../support/capture-under-test';
import { createCompany } from '../support/factories';
import { settledOrWaiting } from '../support/interleavings';
import { compactEverything, createTestApp, ownerDataSource } from '../support/test-app';

/**
 * A record attached to a shared row while another transaction changes how that row is shown
 * (src/changes/shared-rows.ts), forced in both orders with real transactions on two
 * connections, with the read model's refresher run between the two commits: the stored document
 * ends with the change, and a transaction that renamed a row after another attached a record
 * to it tells that record. Each case but the answer's failed before the shared-row locks (#47;
 * `CAPTURE_SQL=<the capture.sql of 49759b7>` shows it): the rename's trigger could not see the
 * uncommitted attach, and the refresher stored the old name for good.
 */

/** A deadline for a condition, sized for a machine twice as slow as this one. */
const DEADLINE_MS = 20_000;

let owner: DataSource;
let app: NestExpressApplication;
let ownerPool: OwnerPool;
let recordingsRefresher: DocumentRefresher;
let conversationsRefresher: DocumentRefresher;
let company: Company;
let people: RecordingsFactory;
let conversations: ConversationsFactory;
let someone: UserRef;
const clients: Client[] = [];

/** A connection as a capture writer has one (the schema owner), with its backend pid. */
async function writer(name: string): Promise<Client & { pid: number }> {
  const client = new Client({ connectionString: process.env.TEST_MIGRATION_DATABASE_URL, application_name: name });
  await client.connect();
  clients.push(client);
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Object.assign(client, { pid: rows[0].pid });
}

/** The factories, writing through `client` (inside whatever transaction it has open). */
function through(client: Client) {
  const db = { query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows } as unknown as DataSource;
  return { people: new RecordingsFactory(db, company.id), conversations: new ConversationsFactory(db, company.id) };
}

/** Resolves once `work` has settled or the backend `pid` waits for a lock: whether it waits. */
async function waits(work: Promise<unknown>, pid: number): Promise<'settled' | 'waiting'> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  return settledOrWaiting(() => settled, pid, owner, DEADLINE_MS, `backend ${pid}`);
}

/** Both read models refreshed (whatever a writer holds is skipped, never waited for). */
async function refresh(): Promise<void> {
  await recordingsRefresher.refreshAll();
  await conversationsRefresher.refreshAll();
}

/** The stored text of a record's document (document and parts) or a conversation's, null while empty. */
async function storedText(doc: StoredDoc): Promise<string | null> {
  const [row] =
    doc.table === 'recording_documents'
      ? await owner.query(
          `SELECT document || coalesce(answers, '') AS text FROM recording_documents WHERE recording_id = $1 AND format IS NOT NULL`,
          [doc.id],
        )
      : await owner.query(`SELECT document || messages AS text FROM conversation_documents WHERE channel = $1 AND conversation_id = $2`, [
          doc.channel,
          doc.id,
        ]);
  return row?.text ?? null;
}

type StoredDoc = { table: 'recording_documents'; id: string } | { table: 'conversation_documents'; channel: 'email' | 'chat'; id: string };

const recordDoc = (ref: Ref): StoredDoc => ({ table: 'recording_documents', id: ref.id });
const chatDoc = (ref: Ref): StoredDoc => ({ table: 'conversation_documents', channel: 'chat', id: ref.id });
const emailDoc = (ref: Ref): StoredDoc => ({ table: 'conversation_documents', channel: 'email', id: ref.id });

/** A case: what is made first (committed), the attaching write, the re-showing write, and what the document shows after. */
interface Case {
  name: string;
  /** Committed before the race: returns the shared row's id and what the attach needs. */
  prepare: () => Promise<Record<string, Ref>>;
  /** The attaching write, through `client`'s factories or SQL; the document to check and the object's public id. */
  attach: (client: Client, made: Record<string, Ref>) => Promise<{ doc: StoredDoc; publicId: string }>;
  /** The re-showing write: sets the new text. */
  reshow: (client: Client, made: Record<string, Ref>, text: string) => Promise<unknown>;
}

const unique = () => `x${Math.random().toString(36).slice(2, 10)}`;

/** An email conversation of someone else's mailbox, committed. */
async function anotherEmail(): Promise<Ref> {
  const other = await conversations.mailbox(someone, `outra.${unique()}@empresa.com.br`);
  return (await conversations.thread(other, 1, new Date(Date.now() - 3_600_000))).conversation;
}

/** Links `mailbox` to `email` through `client`: the email's document to check. */
async function linkMailbox(client: Client, email: Ref, mailbox: { id: string }) {
  await client.query('INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) VALUES ($1, $2, $3)', [
    company.id,
    email.id,
    mailbox.id,
  ]);
  return { doc: emailDoc(email), publicId: email.publicId };
}

const renameUser = (client: Client, { user }: Record<string, Ref>, text: string) =>
  client.query('UPDATE users SET name = $2 WHERE id = $1', [user.id, text]);

const CASES: Case[] = [
  {
    name: 'a chat whose seller is renamed',
    prepare: async () => ({ user: await people.user() }),
    attach: async (client, { user }) => {
      const chat = await through(client).conversations.chat({ seller: user as UserRef, messages: [{ text: 'oi' }] });
      return { doc: chatDoc(chat), publicId: chat.publicId };
    },
    reshow: renameUser,
  },
  {
    name: 'a meeting whose owner is renamed',
    prepare: async () => ({ user: await people.user() }),
    attach: async (client, { user }) => {
      const meeting = await through(client).people.recording('meeting', { owner: user as UserRef });
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: renameUser,
  },
  {
    name: 'a tag linked to a meeting, the tag renamed',
    prepare: async () => ({ tag: await people.tag(), meeting: await people.recording('meeting', { owner: someone }) }),
    attach: async (client, { tag, meeting }) => {
      await client.query('INSERT INTO recording_tags (company_id, recording_id, tag_id) VALUES ($1, $2, $3)', [
        company.id,
        meeting.id,
        tag.id,
      ]);
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: (client, { tag }, text) => client.query('UPDATE tags SET name = $2 WHERE id = $1', [tag.id, text]),
  },
  {
    name: 'an account linked to a chat, its domain changed',
    prepare: async () => ({
      account: await people.account(),
      chat: await conversations.chat({ seller: someone, messages: [{ text: 'oi' }] }),
    }),
    attach: async (client, { account, chat }) => {
      await client.query('INSERT INTO chat_conversation_accounts (company_id, conversation_id, account_id) VALUES ($1, $2, $3)', [
        company.id,
        chat.id,
        account.id,
      ]);
      return { doc: chatDoc(chat), publicId: chat.publicId };
    },
    reshow: (client, { account }, text) => client.query('UPDATE accounts SET domain = $2 WHERE id = $1', [account.id, `${text}.com.br`]),
  },
  {
    name: 'an email linked to a mailbox, the mailbox’s owner renamed',
    prepare: async () => {
      const user = await people.user();
      return { user, mailbox: await conversations.mailbox(user, `caixa.${unique()}@empresa.com.br`), email: await anotherEmail() };
    },
    attach: (client, { mailbox, email }) => linkMailbox(client, email, mailbox),
    reshow: renameUser,
  },
  {
    name: 'an email linked to a new mailbox of a user, the user renamed',
    prepare: async () => ({ user: await people.user(), email: await anotherEmail() }),
    attach: async (client, { user, email }) =>
      linkMailbox(client, email, await through(client).conversations.mailbox(user as UserRef, `nova.${unique()}@empresa.com.br`)),
    reshow: renameUser,
  },
  {
    name: 'a membership of a meeting’s owner, the team renamed',
    prepare: async () => {
      const user = await people.user();
      return { user, team: await people.team(), meeting: await people.recording('meeting', { owner: user }) };
    },
    attach: async (client, { user, team, meeting }) => {
      await through(client).people.membership(user, team, 'participant', true);
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: (client, { team }, text) => client.query('UPDATE teams SET name = $2 WHERE id = $1', [team.id, text]),
  },
  {
    name: 'a speaker of a meeting, the speaker renamed',
    prepare: async () => {
      const meeting = await people.recording('meeting', { owner: someone, enablement: { speakers: [] } });
      return { user: await people.user(), meeting };
    },
    attach: async (client, { user, meeting }) => {
      await client.query(
        'INSERT INTO recording_speaking_durations (company_id, recording_id, user_id, duration_seconds) VALUES ($1, $2, $3, 60)',
        [company.id, meeting.id, user.id],
      );
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: renameUser,
  },
  {
    name: 'an answer to a question, the question reworded',
    prepare: async () => {
      const template = await people.template([{ text: 'Qual o orçamento?', type: 'text' }]);
      return {
        question: template.questions[0],
        meeting: await people.recording('meeting', { owner: someone, template, answers: null }),
      };
    },
    attach: async (client, { question, meeting }) => {
      await through(client).people.answer(meeting.id, question, 'Cem mil');
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: (client, { question }, text) => client.query('UPDATE template_questions SET text = $2 WHERE id = $1', [question.id, text]),
  },
  {
    name: 'a meeting moved to a template, the template renamed',
    prepare: async () => ({
      template: await people.template([{ text: 'Quem decide?', type: 'text' }]),
      meeting: await people.recording('meeting', { owner: someone }),
    }),
    attach: async (client, { template, meeting }) => {
      await client.query('UPDATE recordings SET template_id = $2 WHERE id = $1', [meeting.id, template.id]);
      return { doc: recordDoc(meeting), publicId: meeting.publicId };
    },
    reshow: (client, { template }, text) => client.query('UPDATE templates SET name = $2 WHERE id = $1', [template.id, text]),
  },
];

beforeAll(async () => {
  [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
  ownerPool = new OwnerPool(app.get(DatabaseUrls), app.get(AppConfig), new Metrics(false));
  recordingsRefresher = recordingDocumentRefresher(ownerPool);
  conversationsRefresher = conversationDocumentRefresher(ownerPool, [EMAIL_CHANNEL, CHAT_CHANNEL]);
  company = await createCompany(owner);
  people = new RecordingsFactory(owner, company.id);
  conversations = new ConversationsFactory(owner, company.id);
  someone = await people.user({ name: 'Alguém' });
  await installCaptureUnderTest((sql) => owner.query(sql));
});

afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await Promise.all([owner.destroy(), app.close(), ownerPool.onApplicationShutdown()]);
});

/** The transaction id of `client`'s open transaction. */
const xidOf = async (client: Client) => (await client.query('SELECT pg_current_xact_id()::text AS xid')).rows[0].xid as string;

describe('a record attached to a shared row while the row is re-shown [waits]', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      it('attach first: the re-showing write waits, then logs the record, and the document ends with the change', async () => {
        const made = await c.prepare();
        await refresh();
        const [t, r] = [await writer('attach'), await writer('reshow')];
        const text = unique();
        await t.query('BEGIN');
        const { doc, publicId } = await c.attach(t, made);
        await r.query('BEGIN');
        const reshowing = c.reshow(r, made, text);
        expect(await waits(reshowing, r.pid)).toBe('waiting');
        await refresh();
        await t.query('COMMIT');
        await reshowing;
        const xid = await xidOf(r);
        // The refresher between the two commits: it skips what the re-showing transaction holds.
        await refresh();
        await r.query('COMMIT');
        const told = await owner.query(
          'SELECT action, changed FROM change_log WHERE company_id = $1 AND object_id = $2 AND xid = $3::xid8',
          [company.id, publicId, xid],
        );
        expect(told).toEqual([{ action: 'updated', changed: expect.arrayContaining(['details']) }]);
        await refresh();
        expect(await storedText(doc)).toContain(text);
      });

      it('re-show first: the attaching write waits, and the document it makes shows the change', async () => {
        const made = await c.prepare();
        await refresh();
        const [t, r] = [await writer('attach'), await writer('reshow')];
        const text = unique();
        await r.query('BEGIN');
        await c.reshow(r, made, text);
        await t.query('BEGIN');
        const attaching = c.attach(t, made);
        expect(await waits(attaching, t.pid)).toBe('waiting');
        await refresh();
        await r.query('COMMIT');
        const { doc } = await attaching;
        await refresh();
        await t.query('COMMIT');
        await refresh();
        expect(await storedText(doc)).toContain(text);
      });
    });
  }
});

describe('isolation levels', () => {
  it('refuses a re-showing write at REPEATABLE READ or SERIALIZABLE: its snapshot could not see a record attached meanwhile', async () => {
    const user = await people.user();
    const r = await writer('reshow');
    for (const level of ['REPEATABLE READ', 'SERIALIZABLE']) {
      await r.query(`BEGIN ISOLATION LEVEL ${level}`);
      await expect(r.query(`UPDATE users SET name = 'Outro' WHERE id = $1`, [user.id])).rejects.toMatchObject({
        code: '0A000',
        message: 'a change to users is captured at READ COMMITTED only',
      });
      await r.query('ROLLBACK');
    }
    // An attaching write is not refused at REPEATABLE READ.
    await r.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await through(r).people.recording('meeting', { owner: user });
    await r.query('COMMIT');
  });

  it('fails an attaching REPEATABLE READ write with a serialization failure when the row was re-shown after its snapshot', async () => {
    const user = await people.user();
    const [t, r] = [await writer('attach'), await writer('reshow')];
    await t.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await t.query('SELECT 1'); // the snapshot
    await r.query(`UPDATE users SET name = 'Depois' WHERE id = $1`, [user.id]);
    await expect(through(t).conversations.chat({ seller: user, messages: [{ text: 'oi' }] })).rejects.toMatchObject({ code: '40001' });
    await t.query('ROLLBACK');
  });
});

describe('a record’s kind changed while a part is written [waits]', () => {
  async function kindRace(first: 'part' | 'kind') {
    const meeting = await people.recording('meeting', { owner: someone });
    const [p, k] = [await writer('part'), await writer('kind')];
    const part = () =>
      p.query(`INSERT INTO transcripts (company_id, recording_id, variant, utterances) VALUES ($1, $2, 'original', '[]')`, [
        company.id,
        meeting.id,
      ]);
    // Made a call, it takes a call's id: a call is served under a call id only.
    const callId = mintId('call');
    const kind = () =>
      k.query(`UPDATE recordings SET kind = 'call', bot_history = NULL, public_id = $2 WHERE id = $1`, [meeting.id, callId]);
    await p.query('BEGIN');
    await k.query('BEGIN');
    const [a, b, bClient] = first === 'part' ? [part, kind, k] : [kind, part, p];
    await a();
    const second = b();
    expect(await waits(second, bClient.pid)).toBe('waiting');
    await (first === 'part' ? p : k).query('COMMIT');
    await second;
    const xid = await xidOf(p);
    await (first === 'part' ? k : p).query('COMMIT');
    return {
      meeting,
      callId,
      partEntries: await owner.query('SELECT object, object_id FROM change_log WHERE object_key = $1 AND xid = $2::xid8', [
        meeting.id,
        xid,
      ]),
    };
  }

  it('kind first: the part waits for the kind change and its entry names the new kind and id', async () => {
    const { partEntries, callId } = await kindRace('kind');
    expect(partEntries).toEqual([{ object: 'call', object_id: callId }]);
  });

  it('part first: the kind change waits for the part; its entries say the meeting left and the call came (read it all)', async () => {
    const { meeting, callId } = await kindRace('part');
    const entries = await owner.query(
      `SELECT object, object_id, action FROM change_log WHERE object_key = $1 ORDER BY epoch DESC, xid DESC, seq DESC LIMIT 2`,
      [meeting.id],
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        { object: 'meeting', object_id: meeting.publicId, action: 'deleted' },
        { object: 'call', object_id: callId, action: 'created' },
      ]),
    );
  });

  it('fails a REPEATABLE READ part writer with a serialization failure when the record changed kind after its snapshot', async () => {
    const meeting = await people.recording('meeting', { owner: someone, transcript: 'original' });
    const [p, k] = [await writer('part'), await writer('kind')];
    await p.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await p.query('SELECT 1'); // the snapshot: still a meeting
    await k.query(`UPDATE recordings SET kind = 'call', bot_history = NULL, public_id = $2 WHERE id = $1`, [meeting.id, mintId('call')]);
    await expect(p.query(`UPDATE transcripts SET utterances = '[]' WHERE recording_id = $1`, [meeting.id])).rejects.toMatchObject({
      code: '40001',
    });
    await p.query('ROLLBACK');
  });

  it('refuses an id changed without a change of kind, and a conversation’s or a message’s id changed at all', async () => {
    const meeting = await people.recording('meeting', { owner: someone });
    const chat = await conversations.chat({ seller: someone, messages: [{ text: 'oi' }] });
    for (const [sql, params] of [
      ['UPDATE recordings SET public_id = $2 WHERE id = $1', [meeting.id, mintId('meeting')]],
      ['UPDATE chat_conversations SET public_id = $2 WHERE id = $1', [chat.id, mintId('chatConversation')]],
      ['UPDATE chat_messages SET public_id = $2 WHERE id = $1', [chat.messages[0].id, mintId('chatMessage')]],
    ] as const) {
      await expect(owner.query(sql, [...params])).rejects.toMatchObject({ driverError: { code: '0A000' } });
    }
  });

  it('refuses a second change of kind with a new id in one transaction (one entry per object and transaction could not say both)', async () => {
    const meeting = await people.recording('meeting', { owner: someone });
    const w = await writer('kinds');
    await w.query('BEGIN');
    await w.query(`UPDATE recordings SET kind = 'call', bot_history = NULL, public_id = $2 WHERE id = $1`, [meeting.id, mintId('call')]);
    await expect(
      w.query(`UPDATE recordings SET kind = 'meeting', bot_history = '[]', public_id = $2 WHERE id = $1`, [meeting.id, mintId('meeting')]),
    ).rejects.toMatchObject({ code: '0A000' });
    await w.query('ROLLBACK');
  });

  it('compacts a record that changed kind with new ids and came back as three objects: the first meeting stays deleted', async () => {
    const meeting = await people.recording('meeting', { owner: someone });
    const [callId, againId] = [mintId('call'), mintId('meeting')];
    await owner.query(`UPDATE recordings SET kind = 'call', bot_history = NULL, public_id = $2 WHERE id = $1`, [meeting.id, callId]);
    await owner.query(`UPDATE recordings SET title = 'Ligação' WHERE id = $1`, [meeting.id]);
    await owner.query(`UPDATE recordings SET kind = 'meeting', bot_history = '[]', public_id = $2 WHERE id = $1`, [meeting.id, againId]);
    await compactEverything(owner, `now() + interval '1 hour'`, 100000);
    const entries = await owner.query(
      `SELECT object, object_id, action FROM change_log WHERE object_key = $1 AND object IN ('meeting', 'call')`,
      [meeting.id],
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        { object: 'meeting', object_id: meeting.publicId, action: 'deleted' },
        { object: 'call', object_id: callId, action: 'deleted' },
        { object: 'meeting', object_id: againId, action: 'created' },
      ]),
    );
    expect(entries).toHaveLength(3);
  });
});

describe('a record’s template changed', () => {
  it('lists its answers among the parts to re-read', async () => {
    const template = await people.template([{ text: 'Prazo?', type: 'text' }]);
    const meeting = await people.recording('meeting', { owner: someone });
    const [{ xid }] = await owner.transaction(async (m) => {
      await m.query('UPDATE recordings SET template_id = $2 WHERE id = $1', [meeting.id, template.id]);
      return m.query('SELECT pg_current_xact_id()::text AS xid');
    });
    expect(await owner.query('SELECT changed FROM change_log WHERE object_id = $1 AND xid = $2::xid8', [meeting.publicId, xid])).toEqual([
      { changed: ['details', 'answers'] },
    ]);
  });
});

describe('a new server life recorded by a REPEATABLE READ writer whose snapshot is older than another’s', () => {
  it('fails with a serialization failure (retried), not a duplicate key', async () => {
    const [a, c] = [await writer('old-snapshot'), await writer('first-writer')];
    // As crash recovery leaves it: the life marker empty.
    await c.query('DELETE FROM change_epoch_life');
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await a.query('SELECT 1'); // the snapshot: no life recorded
    await c.query('SELECT app_record_change_epoch()'); // another writer records it
    await expect(a.query('SELECT app_record_change_epoch()')).rejects.toMatchObject({ code: '40001' });
    await a.query('ROLLBACK');
  });
});

describe('the table of shared rows (src/changes/shared-rows.ts)', () => {
  it('lists every foreign key from a captured table to a shared or parent table', async () => {
    const captured = CAPTURED_TABLES.map((t) => t.table);
    const shared = SHARED_ROWS.map((s) => s.table);
    const parents = PARENTS.flatMap((p) => p.table.split(', '));
    const keys: Array<{ table: string; column: string; target: string }> = await owner.query(
      `SELECT c.conrelid::regclass::text AS table, a.attname AS column, c.confrelid::regclass::text AS target
       FROM pg_constraint c JOIN LATERAL unnest(c.conkey) k(n) ON true
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n
       WHERE c.contype = 'f' AND a.attname <> 'company_id' AND c.conrelid::regclass::text = ANY ($1)`,
      [captured],
    );
    // A reference is listed as attaching the row, or as the write that re-shows it (a membership its user).
    const attaching = new Set(SHARED_ROWS.flatMap((s) => s.attachedBy.map((a) => `${a.table}.${a.column} -> ${s.table}`)));
    const reshowing = new Set(SHARED_ROWS.flatMap((s) => s.reshownBy.map((r) => `${r.table} -> ${s.table}`)));
    const unlisted = keys
      .filter((k) => !parents.includes(k.target))
      .filter((k) => !attaching.has(`${k.table}.${k.column} -> ${k.target}`) && !reshowing.has(`${k.table} -> ${k.target}`))
      .map((k) => `${k.table}.${k.column} -> ${k.target}`);
    expect(unlisted).toEqual([]);
    expect(keys.filter((k) => !parents.includes(k.target)).every((k) => shared.includes(k.target))).toBe(true);
  });
});
