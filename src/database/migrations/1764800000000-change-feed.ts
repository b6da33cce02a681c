import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed (`GET /v1/changes`): a log of which objects changed, filled by triggers on
 * every tenant table a route shows, so every writer is covered (seeds, the activity simulator,
 * a capture system writing this database).
 *
 * `change_log` holds at most one entry per object per writing transaction: `xid` is the
 * transaction (`pg_current_xact_id()`), `seq` the order of first writes within it. The feed
 * serves only entries whose `xid` is below `pg_snapshot_xmin(pg_current_snapshot())`, in
 * `(xid, seq)` order: every transaction that could still add an entry before a served position
 * has finished, so a reader never moves past a change that commits later. The entry of an
 * object that several statements of one transaction touch is merged (ON CONFLICT on
 * `change_log_transaction_object_key`): `deleted` wins, then `created` (which means "read it
 * all": `changed` empty), else `updated` with the union of the parts to re-read.
 *
 * Statement-level triggers with transition tables: a bulk seed of 25,000 records logs them in
 * one INSERT per table and statement, not one per row. Each table's trigger maps its rows to
 * the objects whose routes show them:
 * - recordings → the meeting or call itself (created, updated `details`, `transcript` when the
 *   transcript status moved, deleted); a BEFORE trigger moves `updated_at` on every real change,
 *   and a change to a part moves it too (so an update of `updated_at` alone logs nothing);
 * - transcripts → `details` (the record's `updated_at` moved), `transcript`; evaluations →
 *   `details`, `evaluation`; answers and template questions → `details`, `answers`; every other
 *   part of a record, and the shared rows a record shows (owner, team, template, tags,
 *   competitors, accounts, skills) → `details`;
 * - conversations → the conversation; their mailboxes, participants and accounts → `details`;
 * - messages → the message (parent: its conversation), and its conversation `messages` when a
 *   message arrives or is removed.
 * Removing a record removes its parts by cascade; their triggers find no record left and log
 * nothing, the record's own `deleted` entry says it all.
 *
 * Compaction (`app_compact_changes`, SECURITY DEFINER: the API role only reads the log) merges
 * entries older than a cutoff into the newest entry of their object, in batches, under an
 * advisory lock, so one instance compacts at a time.
 *
 * Indexes: the primary key `(company_id, xid, seq)` serves the feed (a range walk from the
 * cursor); `change_log_transaction_object_key` the merge; `change_log_object_idx` compaction's
 * "is there a newer entry of this object"; `change_log_committed_idx` its candidates.
 *
 * As first built. Since `1765100000000-lean-change-capture`, entries carry `object_key` and one
 * unique index `(company_id, object, object_key, xid)` replaces the merge's and compaction's.
 */
export class ChangeFeed1764800000000 implements MigrationInterface {
  name = 'ChangeFeed1764800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of [...PLATFORM, ...CAPTURE.flatMap(triggersOf), BACKFILL]) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table } of CAPTURE) {
      for (const op of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER IF EXISTS ${table}_changes_${op} ON ${table}`);
      await q.query(`DROP FUNCTION IF EXISTS app_changes_${table}()`);
    }
    await q.query('DROP TRIGGER IF EXISTS recordings_touch ON recordings');
    await q.query('DROP FUNCTION IF EXISTS app_touch_recording()');
    await q.query('DROP FUNCTION IF EXISTS app_compact_changes(timestamptz, integer)');
    await q.query('DROP FUNCTION IF EXISTS app_record_changes(change_row[])');
    await q.query('DROP FUNCTION IF EXISTS app_changed_union(text[], text[])');
    await q.query('DROP FUNCTION IF EXISTS app_created_here(bigint[])');
    await q.query('DROP FUNCTION IF EXISTS app_current_xid()');
    await q.query('DROP TABLE change_log');
    await q.query('DROP TYPE change_row');
  }
}

/**
 * Skipping the parts of an object created in the same transaction (its `created` entry says "read
 * it all"): a bulk insert of 25,000 records and their parts would otherwise build an entry per
 * record and part table, only for the merge to discard it against the `created` entry (measured:
 * 1.42× the seed's time without triggers, for 1,000,000 meetings). The check must not depend on
 * a plan chosen from statistics (a correlated probe of the log was once planned as a sequential
 * scan per row): `app_created_here` reads this transaction's `created` entries of the statement's
 * companies once, by the primary key's prefix, into a jsonb object whose keys are probed by
 * binary search; and only rows the transaction itself wrote (`xmin`, a cheap first test; a row
 * written in a subtransaction has another xmin and simply takes the merge's path) are looked up.
 */
export const CREATED_HERE = [
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  `CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$`,
];

/** The column of `change_log` that tells objects apart: their public id, or (since the lean capture migration) their row's id. */
export type ObjectKey = 'object_id' | 'object_key';

/**
 * Compaction: an object's entries older than the cutoff are merged into its newest. A `deleted`
 * among them wins (an id is never used again, so a removed object stays removed, even when an
 * older-started transaction's `updated` entry sorts after its deletion), then `created` (read it
 * all), else the union of the parts. `key`: the column that tells objects apart (with `object_key`,
 * whose unique index holds one entry per object and transaction, a newer entry is one of a later
 * transaction: a range of that index).
 */
export const compactChanges = (
  key: ObjectKey,
) => `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE merged integer;
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.${key}
      FROM change_log c
      WHERE c.committed_at < cutoff AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.${key} = c.${key}
                      AND ${key === 'object_key' ? 'n.xid > c.xid' : '(n.xid, n.seq) > (c.xid, c.seq)'} AND n.xid < pg_snapshot_xmin(pg_current_snapshot()))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.${key}) n.company_id, n.object, n.${key}, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, ${key})
      WHERE n.xid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY n.company_id, n.object, n.${key}, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.${key} = s.${key}
        AND (c.xid, c.seq) < (s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.${key}, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, ${key}, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, ${key}
    )
    UPDATE change_log c SET
      action = CASE WHEN s.action = 'deleted' OR f.deleted THEN 'deleted' WHEN s.action = 'created' OR f.created THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN s.action = 'deleted' OR f.deleted OR s.action = 'created' OR f.created THEN '{}'::text[]
        ELSE app_changed_union(s.changed, f.changed) END
    FROM survivors s JOIN folded f USING (company_id, object, ${key})
    WHERE c.company_id = s.company_id AND c.xid = s.xid AND c.seq = s.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`;
export const COMPACT_CHANGES = compactChanges('object_id');

/**
 * `app_record_changes(rows)`: writes `change_row`s to the log, one entry per object, merged with
 * the entry the transaction already wrote for it (on `constraint`, the unique key of an object's
 * entry in a transaction): `deleted` wins, then `created`, else `updated` with the union of the parts.
 * `key`: the column that tells objects apart (`object_key` once the lean capture migration added it).
 */
export const recordChangesFunction = (verb: 'CREATE' | 'CREATE OR REPLACE', constraint: string, key: ObjectKey = 'object_id') =>
  `${verb} FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    WITH logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, ${key === 'object_key' ? 'object_key, ' : ''}parent_id, action, changed)
        SELECT r.company_id, r.object, ${key === 'object_key' ? 'max(r.object_id), r.object_key' : 'r.object_id'}, max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM unnest(rows) r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
        GROUP BY r.company_id, r.object, r.${key}
        ON CONFLICT ON CONSTRAINT ${constraint} DO UPDATE SET
          action = CASE WHEN EXCLUDED.action = 'deleted' THEN 'deleted' WHEN c.action = 'created' THEN 'created' ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'deleted' OR c.action = 'created' OR EXCLUDED.action = 'created' THEN '{}'::text[]
            ELSE app_changed_union(c.changed, EXCLUDED.changed) END
        -- Nothing to say: already deleted; created and now completed (a bulk insert's parts); the parts already named.
        WHERE c.action <> 'deleted' AND NOT (c.action = 'created' AND EXCLUDED.action = 'updated')
          AND NOT (c.action = 'updated' AND EXCLUDED.action = 'updated' AND EXCLUDED.changed <@ c.changed)
        RETURNING c.company_id, c.object, c.${key}, c.action
    )
    -- A change to a record's parts moves the record's updated_at: only where an entry was written
    -- or widened (not for the parts of a record created in this transaction); its own changes
    -- already did (app_touch_recording), which the condition on updated_at recognises.
    UPDATE recordings r SET updated_at = now()
      FROM logged x
      WHERE x.object IN ('meeting', 'call') AND x.action = 'updated'
        AND r.company_id = x.company_id AND ${key === 'object_key' ? 'r.id = x.object_key' : 'r.public_id = x.object_id'} AND r.updated_at < now();
  END $$`;

const PLATFORM = [
  `CREATE TABLE change_log (
    company_id bigint NOT NULL REFERENCES companies (id),
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    seq bigint GENERATED ALWAYS AS IDENTITY,
    public_id text NOT NULL DEFAULT app_public_id('chg_'),
    object text NOT NULL CHECK (object IN ('meeting', 'call', 'email', 'email_message', 'chat', 'chat_message')),
    object_id text NOT NULL,
    parent_id text,
    action text NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
    changed text[] NOT NULL DEFAULT '{}'
      CHECK (changed <@ ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages']),
    committed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, xid, seq),
    CONSTRAINT change_log_transaction_object_key UNIQUE (company_id, xid, object, object_id)
  )`,
  `CREATE INDEX change_log_object_idx ON change_log (company_id, object, object_id, xid, seq)`,
  `CREATE INDEX change_log_committed_idx ON change_log (committed_at)`,
  `SELECT app_enable_tenant_rls('change_log', 'company_id')`,
  `CREATE TYPE change_row AS (company_id bigint, object text, object_id text, parent_id text, action text, changed text[])`,
  ...CREATED_HERE,
  // The parts to re-read, in the order the API lists them.
  `CREATE FUNCTION app_changed_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(p ORDER BY array_position(ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages'], p)), '{}')
    FROM (SELECT DISTINCT unnest(a || b) AS p) parts
  $$`,
  recordChangesFunction('CREATE', 'change_log_transaction_object_key'),
  `CREATE FUNCTION app_touch_recording() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF (to_jsonb(NEW) - 'updated_at') IS DISTINCT FROM (to_jsonb(OLD) - 'updated_at') THEN
      NEW.updated_at := greatest(now(), OLD.updated_at);
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER recordings_touch BEFORE UPDATE ON recordings FOR EACH ROW EXECUTE FUNCTION app_touch_recording()`,
  // Compaction, run by the service in the background (the API role may execute it, nothing else).
  COMPACT_CHANGES,
  `REVOKE ALL ON FUNCTION app_compact_changes(timestamptz, integer) FROM PUBLIC`,
];

/** How one table's rows map to the objects whose routes show them. */
export interface Capture {
  table: string;
  /**
   * `change_row`s for the rows of the transition table `rows`, changed by `op`: 'created',
   * 'updated' or 'deleted' for an insert, update or delete of the table's rows.
   */
  rows(rows: string, op: 'created' | 'updated' | 'deleted'): string;
  /** The statements run for an INSERT, when the entries are written otherwise than from `rows(new_rows, 'created')`. */
  inserted?: string;
  /**
   * The same capture, dropping before any lookup the transition table's rows whose parent
   * (`column`, an id of `table`) `filter` rejects.
   */
  skipping?(filter: (table: string, column: string) => string): Capture;
}

/** ` WHERE filter` on a transition table's rows, or nothing. */
const where = (filter?: string) => (filter ? ` WHERE ${filter}` : '');

/** Rows of `alias` that are not objects created in this transaction (`rows`: the statement's transition table). */
export const notCreatedHere = (alias: string, rows: string) =>
  `NOT (${alias}.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM ${rows}))) ? ${alias}.public_id)`;

/** Meetings and calls themselves: their real changes (not of `updated_at` alone), `transcript` when its status moved. */
const recordings = (filter?: string): Capture => ({
  table: 'recordings',
  skipping: (f) => recordings(f('recordings', 'n.id')),
  rows: (rows, op) =>
    op === 'updated'
      ? `SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
           CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ARRAY['details', 'transcript'] ELSE ARRAY['details'] END
         )::change_row
         FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (to_jsonb(n) - 'updated_at') IS DISTINCT FROM (to_jsonb(o) - 'updated_at')${filter ? ` AND ${filter}` : ''}`
      : `SELECT ROW(t.company_id, t.kind, t.public_id, NULL, '${op}', '{}'::text[])::change_row FROM ${rows} t`,
});

/**
 * A part of a meeting or call: the record, `updated` with `parts` (nothing for a record created
 * in this transaction). `filter`: which of the part's rows to look up at all.
 */
const part = (table: string, parts: string[], filter?: string): Capture => ({
  table,
  skipping: (f) => part(table, parts, f('recordings', 'recording_id')),
  rows: (rows) => `SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ${partsArray(parts)})::change_row
    FROM (SELECT DISTINCT company_id, recording_id FROM ${rows}${where(filter)}) t JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
    WHERE ${notCreatedHere('r', rows)}`,
});

/** A part of a conversation of `channel`: the conversation, `updated` with `parts` (nothing for one created in this transaction). */
const conversationPart = (table: string, channel: 'email' | 'chat', parts: string[], filter?: string): Capture => ({
  table,
  skipping: (f) => conversationPart(table, channel, parts, f(`${channel}_conversations`, 'conversation_id')),
  rows: (rows) => `SELECT ROW(c.company_id, '${channel}', c.public_id, NULL, 'updated', ${partsArray(parts)})::change_row
    FROM (SELECT DISTINCT company_id, conversation_id FROM ${rows}${where(filter)}) t
    JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    WHERE ${notCreatedHere('c', rows)}`,
});

/** A conversation, or a message of one (with its conversation's `messages` when one arrives or is removed). */
const conversation = (channel: 'email' | 'chat', filter?: string): Capture => ({
  table: `${channel}_conversations`,
  skipping: (f) => conversation(channel, f(`${channel}_conversations`, 'id')),
  rows: (rows, op) =>
    `SELECT ROW(t.company_id, '${channel}', t.public_id, NULL, '${op}', ${details(op)})::change_row FROM ${rows} t${op === 'updated' ? where(filter) : ''}`,
});
const message = (channel: 'email' | 'chat', filter?: string): Capture => ({
  table: `${channel}_messages`,
  skipping: (f) => message(channel, f(`${channel}_conversations`, 'conversation_id')),
  rows: (rows, op) => `SELECT ROW(t.company_id, '${channel}_message', t.public_id, c.public_id, '${op}', ${details(op)})::change_row
      FROM ${rows} t JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
    UNION ALL
    ${arrivals(channel, rows, op, filter)}`,
});
/** A conversation's `messages` when messages arrive or are removed (nothing for one created in this transaction). */
export const arrivals = (channel: 'email' | 'chat', rows: string, op: string, filter?: string) =>
  `SELECT ROW(c.company_id, '${channel}', c.public_id, NULL, 'updated', ARRAY['messages'])::change_row
      FROM (SELECT DISTINCT company_id, conversation_id FROM ${rows}${where(filter)}) t
      JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
      WHERE '${op}' <> 'updated' AND ${notCreatedHere('c', rows)}`;

/** Records, emails and chats that show the users in `users` (a query of `id`, `company_id`). */
const showingUsers = (users: string) => `
  SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r WHERE (r.company_id, r.owner_id) IN (SELECT company_id, id FROM (${users}) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
    WHERE (d.company_id, d.user_id) IN (SELECT company_id, id FROM (${users}) u)
  UNION SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
    WHERE (s.company_id, s.user_id) IN (SELECT company_id, id FROM (${users}) u)
  UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (SELECT company_id, id FROM (${users}) u)
  UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ARRAY['details'])::change_row
    FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
    JOIN mailboxes mb ON mb.id = cm.mailbox_id
    WHERE (mb.company_id, mb.owner_id) IN (SELECT company_id, id FROM (${users}) u)`;

/** A user's team memberships: the records, emails and chats that show the user (with its team). */
const memberships = (filter?: string): Capture => ({
  table: 'team_memberships',
  skipping: (f) => memberships(f('users', 'user_id')),
  rows: (rows) => showingUsers(`SELECT company_id, user_id AS id FROM ${rows}${where(filter)}`),
});

/** Records (and conversations) linked to the rows of a shared table through link tables. */
const linked = (table: string, links: Array<[link: string, column: string, object: 'recording' | 'email' | 'chat', parts: string[]]>) =>
  ({
    table,
    rows: (rows) =>
      links
        .map(([link, column, object, parts]) =>
          object === 'recording'
            ? `SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ${partsArray(parts)})::change_row
                 FROM ${link} l JOIN recordings r ON r.id = l.recording_id
                 WHERE (l.company_id, l.${column}) IN (SELECT company_id, id FROM ${rows})`
            : `SELECT ROW(c.company_id, '${object}', c.public_id, NULL, 'updated', ${partsArray(parts)})::change_row
                 FROM ${link} l JOIN ${object}_conversations c ON c.id = l.conversation_id
                 WHERE (l.company_id, l.${column}) IN (SELECT company_id, id FROM ${rows})`,
        )
        .join('\n UNION '),
  }) satisfies Capture;

export const partsArray = (parts: string[]) => `ARRAY[${parts.map((p) => `'${p}'`).join(', ')}]::text[]`;
export const details = (op: string) => (op === 'updated' ? `ARRAY['details']::text[]` : `'{}'::text[]`);
const DETAILS = ['details'];

/** Every tenant table a route shows, and the objects its rows belong to (as first built; see the lean capture migration). */
export const CAPTURE: Capture[] = [
  recordings(),
  part('transcripts', ['details', 'transcript']),
  part('recording_evaluations', ['details', 'evaluation']),
  part('recording_answers', ['details', 'answers']),
  ...['recording_tags', 'recording_competitors', 'recording_accounts', 'recording_enablements'].map((t) => part(t, DETAILS)),
  ...['recording_speaking_durations', 'recording_skill_scores'].map((t) => part(t, DETAILS)),
  {
    table: 'template_questions',
    rows: (rows) => `SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details', 'answers'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, template_id FROM ${rows})`,
  },
  {
    table: 'templates',
    rows: (rows) => `SELECT ROW(r.company_id, r.kind, r.public_id, NULL, 'updated', ARRAY['details'])::change_row
      FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM ${rows})`,
  },
  { table: 'users', rows: (rows) => showingUsers(`SELECT company_id, id FROM ${rows}`) },
  memberships(),
  {
    table: 'teams',
    rows: (rows) =>
      showingUsers(
        `SELECT m.company_id, m.user_id AS id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM ${rows})`,
      ),
  },
  linked('tags', [['recording_tags', 'tag_id', 'recording', DETAILS]]),
  linked('competitors', [['recording_competitors', 'competitor_id', 'recording', DETAILS]]),
  linked('skills', [['recording_skill_scores', 'skill_id', 'recording', DETAILS]]),
  linked('accounts', [
    ['recording_accounts', 'account_id', 'recording', DETAILS],
    ['email_conversation_accounts', 'account_id', 'email', DETAILS],
    ['chat_conversation_accounts', 'account_id', 'chat', DETAILS],
  ]),
  linked('mailboxes', [['email_conversation_mailboxes', 'mailbox_id', 'email', DETAILS]]),
  conversation('email'),
  conversationPart('email_conversation_mailboxes', 'email', DETAILS),
  conversationPart('email_participants', 'email', DETAILS),
  conversationPart('email_conversation_accounts', 'email', DETAILS),
  message('email'),
  conversation('chat'),
  conversationPart('chat_conversation_accounts', 'chat', DETAILS),
  message('chat'),
];

/** The trigger function of a table and its three statement-level triggers. */
function triggersOf(c: Capture): string[] {
  return [captureFunctionOf(c), ...triggerStatementsOf(c)];
}

/**
 * The trigger function of a captured table, with the six-field `change_row`s of this migration
 * (`leanFunctionOf` in `1765100000000-lean-change-capture` adds the object key for later ones).
 */
export function captureFunctionOf(c: Capture): string {
  const fn = `app_changes_${c.table}`;
  return `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${c.inserted ?? `PERFORM app_record_changes(ARRAY(${c.rows('new_rows', 'created')}));`}
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM app_record_changes(ARRAY(${c.rows('old_rows', 'deleted')}));
      ELSE
        PERFORM app_record_changes(ARRAY(${c.rows('new_rows', 'updated')}));
        -- A row moved to another parent changes the old one too.
        PERFORM app_record_changes(ARRAY(SELECT x FROM unnest(ARRAY(${c.rows('old_rows', 'updated')})) x
          WHERE (x).action = 'updated'));
      END IF;
      RETURN NULL;
    END $$`;
}

export function triggerStatementsOf(c: Capture): string[] {
  const fn = `app_changes_${c.table}`;
  return [
    `CREATE TRIGGER ${c.table}_changes_insert AFTER INSERT ON ${c.table}
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${c.table}_changes_update AFTER UPDATE ON ${c.table}
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${c.table}_changes_delete AFTER DELETE ON ${c.table}
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  ];
}

/** One `created` entry per existing object, so `start=beginning` lists everything. */
const BACKFILL = `INSERT INTO change_log (company_id, object, object_id, parent_id, action)
  SELECT company_id, kind, public_id, NULL, 'created' FROM recordings
  UNION ALL SELECT company_id, 'email', public_id, NULL, 'created' FROM email_conversations
  UNION ALL SELECT m.company_id, 'email_message', m.public_id, c.public_id, 'created'
    FROM email_messages m JOIN email_conversations c ON c.id = m.conversation_id
  UNION ALL SELECT company_id, 'chat', public_id, NULL, 'created' FROM chat_conversations
  UNION ALL SELECT m.company_id, 'chat_message', m.public_id, c.public_id, 'created'
    FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id`;
