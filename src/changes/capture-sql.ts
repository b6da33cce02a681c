/**
 * Change capture as it runs today: every function and trigger that turns a write to a tenant
 * table into entries of `change_log`, in one place. Migrations are history and hold the literal
 * SQL they ran; this file is the present. `capture.sql` beside it is this file rendered (a unit
 * test keeps the two equal), so a reviewer reads the SQL that runs, and a medium spec proves
 * that a migrated database runs exactly this. To change capture: edit here, run
 * `npm run capture:render`, and add a migration that installs the new text
 * (`npm run capture:render -- --migration Name` writes one with the literal statements).
 *
 * How it works, in short:
 * - Statement-level AFTER triggers with transition tables (`new_rows`, `old_rows`) map each
 *   table's rows to the objects whose routes show them, as `change_row`s, and
 *   `app_record_changes` writes at most one entry per object and transaction (the unique index
 *   `change_log_object_transaction_key`), merging with the entry the transaction already wrote.
 * - An object's entry says what a client must do: `created` (read it all), `updated` with the
 *   parts to re-read, `deleted` (drop it). Within a transaction the last of `created` and
 *   `deleted` wins (a record moved back to the route it left exists again), an `updated` adds
 *   its parts, and a message's entry always names the conversation it is in now.
 * - Every way a row leaves a route produces `deleted`: a delete, a cascade (a conversation's
 *   messages are told before the cascade removes them), a meeting becoming a call (deleted
 *   meeting, created call) or a row moving to another company. TRUNCATE of a captured table is
 *   refused (it fires no row or statement trigger with rows); capture triggers fire under every
 *   `session_replication_role` (ENABLE ALWAYS).
 * - Cheap for bulk writers: recordings and conversations note the ids they create in a
 *   transaction-local setting, and the triggers of their parts drop those rows before any join
 *   (the object's `created` entry already says "read it all"); shared rows that nothing
 *   references yet (users, teams, templates, tags, competitors, skills, accounts, mailboxes)
 *   log nothing on insert or delete (see REFERENCED_ONLY).
 * - The read model (`recording_documents`) is emptied by the entries themselves, in the writing
 *   transaction, so a served document is never older than the tables.
 */

import { SHARED_ROWS, sharedRowLocks } from './shared-rows';

/** The objects of the feed and the parts a client re-reads. */
const PARTS_ORDER = `ARRAY['details', 'transcript', 'evaluation', 'answers', 'messages']`;

/**
 * Shared rows shown only through a foreign key from a captured table: a new one is shown by
 * nothing yet, and a delete cascades to captured rows, sets their references to null (an update,
 * captured) or is refused. They keep their UPDATE trigger only (users also note their inserted
 * ids: a new user's team memberships change nothing a `created` entry does not already cover;
 * a new mailbox logs nothing but locks its owner, which it attaches: shared-rows.ts).
 */
export const REFERENCED_ONLY = ['users', 'teams', 'templates', 'tags', 'competitors', 'skills', 'accounts', 'mailboxes'];

type Channel = 'email' | 'chat';
const CHANNELS: Channel[] = ['email', 'chat'];

/** `ARRAY['a', 'b']::text[]`. */
const parts = (names: string[]) => `ARRAY[${names.map((p) => `'${p}'`).join(', ')}]::text[]`;

/** Rows of `rows` whose `column` is not the id of a row of `table` this transaction created. */
const notNoted = (table: string, column: string) => `NOT ${column} <@ (SELECT app_created_ids('${table}'))`;

/**
 * Objects of `alias` not created in this transaction: the check behind the notes, for a part
 * whose trigger fires before its object's in the same statement.
 */
const notCreatedHere = (alias: string, rows: string) =>
  `NOT (${alias}.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM ${rows}))) ? ${alias}.public_id)`;

/** The statement that writes `change_row`s. */
const record = (select: string) => `PERFORM app_record_changes(ARRAY(${select}));`;

/** The rows a statement touched: its new rows, and on UPDATE its old rows too (a row moved from one parent to another changes both). */
const touched = (columns: string, op: 'INSERT' | 'DELETE' | 'UPDATE', filter?: string) => {
  const from = (rows: string) => `SELECT ${columns} FROM ${rows}${filter ? ` WHERE ${filter}` : ''}`;
  if (op === 'INSERT') return from('new_rows');
  if (op === 'DELETE') return from('old_rows');
  return `${from('new_rows')} UNION ${from('old_rows')}`;
};

/**
 * The trigger function of `table`, `app_changes_<table>`: for each of INSERT, DELETE and UPDATE
 * it is fired for, first the locks of the shared rows the statement attaches or re-shows
 * (shared-rows.ts), then `body(op)`.
 */
const byOperation = (table: string, body: Partial<Record<'INSERT' | 'DELETE' | 'UPDATE', string>>) => {
  const branches = (['INSERT', 'DELETE', 'UPDATE'] as const).filter((op) => body[op] !== undefined);
  const ifs = branches.map((op, i) => {
    const statements = [...sharedRowLocks(table, op), body[op]!.trim()].join('\n');
    return `  ${i === 0 ? 'IF' : 'ELSIF'} TG_OP = '${op}' THEN\n    ${statements.replace(/\n/g, '\n    ')}`;
  });
  return `CREATE OR REPLACE FUNCTION app_changes_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${ifs.join('\n')}
  END IF;
  RETURN NULL;
END $$`;
};

/** `created` entries straight from an insert's transition table (no array, no merge work). */
const createdEntries = (
  select: string,
) => `INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
  ${select.trim().replace(/\n/g, '\n  ')}
ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;`;

/** This server life's epoch, once per statement (see app_change_epoch). */
const EPOCH = '(SELECT app_change_epoch())';

const noteCreated = (table: string) => `PERFORM app_note_created('${table}', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));`;

// ---------------------------------------------------------------------------------------------
// The shared functions.

const SHARED: string[] = [
  `CREATE OR REPLACE FUNCTION app_current_xid() RETURNS xid LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid
  $$`,
  `CREATE OR REPLACE FUNCTION app_created_here(companies bigint[]) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(object_id, true), '{}'::jsonb) FROM change_log
      WHERE company_id = ANY (companies) AND object = ANY (ARRAY['meeting', 'call', 'email', 'chat'])
        AND epoch = app_live_change_epoch() AND xid = pg_current_xact_id() AND action = 'created');
  END $$`,
  // The ids a transaction created in a table, as `<xid>:<int8multirange>` in `app.created_<table>`.
  `CREATE OR REPLACE FUNCTION app_created_ids(tbl text) RETURNS int8multirange LANGUAGE plpgsql STABLE AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    noted text := current_setting('app.created_' || tbl, true);
  BEGIN
    IF starts_with(noted, mine) THEN RETURN substr(noted, length(mine) + 1)::int8multirange; END IF;
    RETURN '{}'::int8multirange;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_note_created(tbl text, ids int8multirange) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF ids IS NULL OR isempty(ids) THEN RETURN; END IF;
    PERFORM set_config('app.created_' || tbl, pg_current_xact_id()::text || ':' || (ids + app_created_ids(tbl))::text, true);
  END $$`,
  /*
   * Epochs. The feed orders entries by (epoch, xid, seq) and serves an entry once its
   * transaction can no longer be running: an older epoch, or an xid below the horizon. An epoch
   * is one life of the server, and a life ends whenever the transaction counter can go back: a
   * restart (the postmaster's start time changes), a crash (crash recovery empties the unlogged
   * `change_epoch_life`; it may hand out again ids whose WAL never reached the disk), a
   * promotion or a point-in-time recovery (both start with unlogged tables empty), a restore
   * into another cluster (another start time). A new life's number is at least the seconds since
   * 2020 (and above every recorded one), so it also sorts after any epoch a lost timeline may
   * have issued that the restored `change_epochs` does not know. Writers record it through
   * app_record_change_epoch (SECURITY DEFINER; the service does at start and every minute, so a
   * writer seldom has to) and app_change_epoch caches it for their transaction; readers
   * (app_live_change_epoch) write nothing: the recorded life, or the lowest number the first
   * writer of this life can record.
   */
  `CREATE OR REPLACE FUNCTION app_record_change_epoch() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE e integer;
  BEGIN
    SELECT l.epoch INTO e FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    -- One new life at a time: a second writer waits here, then finds the first one's.
    LOCK TABLE change_epochs IN SHARE ROW EXCLUSIVE MODE;
    SELECT l.epoch INTO e FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time();
    IF FOUND THEN RETURN e; END IF;
    BEGIN
      INSERT INTO change_epochs (epoch, server_started_at)
        SELECT greatest(coalesce(max(epoch), 0) + 1, floor(extract(epoch FROM clock_timestamp()) - 1577836800)::integer),
          pg_postmaster_start_time()
        FROM change_epochs
        RETURNING epoch INTO e;
    EXCEPTION WHEN unique_violation THEN
      -- A REPEATABLE READ snapshot older than another writer's new life, in the same second: it
      -- cannot see that life's number and took the same one. A serialization failure, retried.
      RAISE EXCEPTION 'another writer recorded this server life after this transaction''s snapshot'
        USING ERRCODE = 'serialization_failure';
    END;
    -- REPEATABLE READ writers whose snapshot predates another's new life fail here with a
    -- serialization error (the row it wrote is not theirs to see) and are retried.
    INSERT INTO change_epoch_life (one, epoch, server_started_at) VALUES (true, e, pg_postmaster_start_time())
      ON CONFLICT (one) DO UPDATE SET epoch = EXCLUDED.epoch, server_started_at = EXCLUDED.server_started_at;
    RETURN e;
  END $$`,
  `CREATE OR REPLACE FUNCTION app_change_epoch() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    cached text := current_setting('app.change_epoch', true);
    e integer;
  BEGIN
    IF starts_with(cached, mine) THEN RETURN substr(cached, length(mine) + 1)::integer; END IF;
    e := app_record_change_epoch();
    PERFORM set_config('app.change_epoch', mine || e::text, true);
    RETURN e;
  END $$`,
  // Unrecorded: the lowest number this life can get. Every recorded epoch is then final, and a
  // position (max + 1, horizon, 0) lies before any entry of this life whatever number its first
  // writer records (never lower), with no reliance on the clock.
  `CREATE OR REPLACE FUNCTION app_live_change_epoch() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(
      (SELECT l.epoch FROM change_epoch_life l WHERE l.server_started_at = pg_postmaster_start_time()),
      (SELECT coalesce(max(e.epoch), 0) + 1 FROM change_epochs e))
  $$`,
  // The parts to re-read, in the order the API lists them.
  `CREATE OR REPLACE FUNCTION app_changed_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(p ORDER BY array_position(${PARTS_ORDER}, p)), '{}')
    FROM (SELECT DISTINCT unnest(a || b) AS p) parts
  $$`,
  /*
   * One entry per object and transaction. Rows of one statement for one object merge first
   * (deleted, else created, else the union of the parts); then the entry the transaction
   * already holds: the newer of `created` and `deleted` wins (within one transaction only a
   * record moved back to the route it left goes from deleted to created), an `updated` adds its
   * parts to an `updated`, and the entry names the object's parent as it is now (a moved message).
   */
  `CREATE OR REPLACE FUNCTION app_record_changes(rows change_row[]) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF cardinality(rows) = 0 THEN RETURN; END IF;
    -- A record's kind and id, which its entry names, may have changed since the caller's join
    -- read them (a part's foreign key check does not wait for a change of kind). So the records
    -- are locked first, in id order, as the kind change holds its record, and read again after,
    -- in a statement of its own: a change that committed meanwhile is seen (READ COMMITTED) or
    -- fails this transaction (REPEATABLE READ: a serialization failure), one still running waits.
    -- The record before its document, as every writer of a record takes them.
    PERFORM 1 FROM recordings x
      WHERE x.id IN (SELECT r.object_key FROM unnest(rows) r WHERE r.object IN ('meeting', 'call') AND r.action = 'updated')
      ORDER BY x.id FOR NO KEY UPDATE;
    WITH fresh AS (
      SELECT r.company_id, coalesce(x.kind, r.object) AS object, coalesce(x.public_id, r.object_id) AS object_id, r.parent_id, r.action, r.changed, r.object_key
      FROM unnest(rows) r
        LEFT JOIN recordings x ON r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id = r.object_key AND x.company_id = r.company_id
      -- A record deleted meanwhile: its own entry says so.
      WHERE NOT (r.object IN ('meeting', 'call') AND r.action = 'updated' AND x.id IS NULL)
    ), logged AS (
      INSERT INTO change_log AS c (company_id, object, object_id, object_key, epoch, parent_id, action, changed)
        SELECT r.company_id, r.object, max(r.object_id), r.object_key, ${EPOCH}, max(r.parent_id),
          CASE WHEN bool_or(r.action = 'deleted') THEN 'deleted' WHEN bool_or(r.action = 'created') THEN 'created' ELSE 'updated' END,
          CASE WHEN bool_or(r.action <> 'updated') THEN '{}'::text[]
            ELSE app_changed_union('{}', array_agg(DISTINCT p.part) FILTER (WHERE p.part IS NOT NULL)) END
        FROM fresh r LEFT JOIN LATERAL unnest(r.changed) p(part) ON true
        GROUP BY r.company_id, r.object, r.object_key
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET
          action = CASE WHEN EXCLUDED.action = 'updated' THEN c.action ELSE EXCLUDED.action END,
          changed = CASE WHEN EXCLUDED.action = 'updated' AND c.action = 'updated' THEN app_changed_union(c.changed, EXCLUDED.changed)
            ELSE '{}'::text[] END,
          parent_id = coalesce(EXCLUDED.parent_id, c.parent_id)
        -- Only where the entry says something new.
        WHERE (EXCLUDED.action <> 'updated' AND EXCLUDED.action <> c.action)
          OR (EXCLUDED.action = 'updated' AND c.action = 'updated' AND NOT EXCLUDED.changed <@ c.changed)
          OR (c.action <> 'deleted' AND EXCLUDED.parent_id IS DISTINCT FROM c.parent_id AND EXCLUDED.parent_id IS NOT NULL)
        RETURNING c.company_id, c.object, c.object_key, c.action
    )
    -- A change to a record's parts moves the record's updated_at: only where an entry was written
    -- or widened (not for the parts of a record created in this transaction); its own changes
    -- already did (app_touch_recording), which the condition on updated_at recognises.
    UPDATE recordings r SET updated_at = now()
      FROM logged x
      WHERE x.object IN ('meeting', 'call') AND x.action = 'updated'
        AND r.company_id = x.company_id AND r.id = x.object_key AND r.updated_at < now();
  END $$`,
  // A real change to a record moves its updated_at (never backwards); an update of updated_at alone keeps the value written.
  `CREATE OR REPLACE FUNCTION app_touch_recording() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF (to_jsonb(NEW) - 'updated_at') IS DISTINCT FROM (to_jsonb(OLD) - 'updated_at') THEN
      NEW.updated_at := greatest(now(), OLD.updated_at);
    END IF;
    RETURN NEW;
  END $$`,
  // A write that changes how shared rows are shown must see every record attached to them when it
  // looks for what shows them: only a READ COMMITTED statement that waited for the attaching
  // transaction does (shared-rows.ts). Older snapshots are refused, not silently wrong.
  `CREATE OR REPLACE FUNCTION app_require_read_committed(tbl text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'a change to % is captured at READ COMMITTED only', tbl
        USING ERRCODE = 'feature_not_supported',
          HINT = 'It changes how other rows are shown; at ' || upper(current_setting('transaction_isolation')) || ' its snapshot cannot see a record attached to them meanwhile. Run it at READ COMMITTED (the default).';
    END IF;
  END $$`,
  // TRUNCATE fires no trigger with rows, so nothing could say what it removed: refused.
  `CREATE OR REPLACE FUNCTION app_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'TRUNCATE of % is not captured by the change feed', TG_TABLE_NAME
      USING ERRCODE = 'feature_not_supported', HINT = 'Delete the rows instead (DELETE FROM ...): every delete is captured.';
  END $$`,
];

// ---------------------------------------------------------------------------------------------
// Meetings and calls.

/** A record as an object of the feed: `(kind, public_id, id)` of `alias` in `company`. */
const recordRow = (alias: string, action: string, changed: string) =>
  `ROW(${alias}.company_id, ${alias}.kind, ${alias}.public_id, NULL, '${action}', ${changed}, ${alias}.id)::change_row`;

/**
 * Back where it was: an object that joins a route (a record made a meeting again, a conversation
 * or a message moved back to a company) may have a later transaction's entry there saying it
 * left. That entry cannot have been served yet (the horizon is below this transaction) and would
 * sort after this one's `created`: it becomes a re-read, which a fetch answers with the truth.
 * `moved`: the transition rows (`n`) that joined a route; `object`: the object type of `n` there.
 */
const backWhereItWas = (moved: string, object: string) => `UPDATE change_log c SET action = 'updated', changed = ${parts(['details'])}
  FROM ${moved}
    AND c.company_id = n.company_id AND c.object = ${object} AND c.object_key = n.id
    AND (c.epoch, c.xid) > (${EPOCH}, pg_current_xact_id()) AND c.action = 'deleted';`;

/** A record that left a route (another kind or company) or joined one: deleted where it was, created where it is. */
const recordsMoved = `new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)`;

/**
 * An object's id never changes, but a record's with its kind (the id carries the kind's
 * prefix): an entry would name the new id, and no client would be told the old one is gone.
 * `moved`: the transition rows that keep their route (kind or company).
 */
const idKept = (
  what: string,
  kept: string,
) => `IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.public_id <> o.public_id${kept}) THEN
  RAISE EXCEPTION 'the id of a % does not change%', '${what}', ${what === 'record' ? `' but with its kind'` : `''`}
    USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
END IF;`;

/**
 * A record may change kind once a transaction when it takes an id of its new kind: a second
 * change would give the same object (kind and row) two ids in one transaction, and the log holds
 * one entry per object and transaction (the old id's `deleted` would be lost). Refused.
 */
const KIND_ONCE = `${idKept('record', ' AND n.kind = o.kind')}
IF EXISTS (SELECT 1 FROM ${recordsMoved}
    AND EXISTS (SELECT 1 FROM change_log c WHERE c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
      AND c.epoch = ${EPOCH} AND c.xid = pg_current_xact_id() AND c.object_id <> n.public_id)) THEN
  RAISE EXCEPTION 'a record changes kind at most once a transaction when its id changes with it'
    USING ERRCODE = 'feature_not_supported', HINT = 'Commit the first change of kind, then make the next one.';
END IF;`;

const RECORDINGS = byOperation('recordings', {
  INSERT: `${noteCreated('recordings')}
${createdEntries(`SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created', ${EPOCH} FROM new_rows t`)}`,
  DELETE: record(`SELECT ${recordRow('t', 'deleted', `'{}'::text[]`)} FROM old_rows t`),
  UPDATE: `${KIND_ONCE}
${record(`SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
    ${parts(['details'])}
      || CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ${parts(['transcript'])} ELSE '{}' END
      || CASE WHEN n.template_id IS DISTINCT FROM o.template_id THEN ${parts(['answers'])} ELSE '{}' END, n.id)::change_row
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE n.company_id = o.company_id AND n.kind = o.kind AND to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
    AND ${notNoted('recordings', 'n.id')}
UNION ALL SELECT ${recordRow('o', 'deleted', `'{}'::text[]`)} FROM ${recordsMoved}
UNION ALL SELECT ${recordRow('n', 'created', `'{}'::text[]`)} FROM ${recordsMoved}`)}
${backWhereItWas(recordsMoved, 'n.kind')}`,
});

/** A part of a meeting or call: the record, `updated` with `names` (nothing for a record created in this transaction). */
const recordPart = (table: string, names: string[]) => {
  const select = (op: 'INSERT' | 'DELETE' | 'UPDATE', rows: string) =>
    record(`SELECT ${recordRow('r', 'updated', parts(names))}
  FROM (${touched('company_id, recording_id', op, notNoted('recordings', 'recording_id'))}) t
  JOIN recordings r ON r.id = t.recording_id AND r.company_id = t.company_id
  WHERE ${notCreatedHere('r', rows)}`);
  return {
    table,
    ops: ['insert', 'update', 'delete'],
    fn: byOperation(table, {
      INSERT: select('INSERT', 'new_rows'),
      DELETE: select('DELETE', 'old_rows'),
      UPDATE: select('UPDATE', 'new_rows'),
    }),
  };
};

// ---------------------------------------------------------------------------------------------
// What shows the shared rows.

/** Records, emails and chats that show the users of `users` (a query of `company_id, id`). */
const showingUsers = (users: string) => `SELECT ${recordRow('r', 'updated', parts(['details']))}
  FROM recordings r WHERE (r.company_id, r.owner_id) IN (${users})
UNION SELECT ${recordRow('r', 'updated', parts(['details']))}
  FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
  WHERE (d.company_id, d.user_id) IN (${users})
UNION SELECT ${recordRow('r', 'updated', parts(['details']))}
  FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
  WHERE (s.company_id, s.user_id) IN (${users})
UNION SELECT ROW(c.company_id, 'chat', c.public_id, NULL, 'updated', ${parts(['details'])}, c.id)::change_row
  FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (${users})
UNION SELECT ROW(c.company_id, 'email', c.public_id, NULL, 'updated', ${parts(['details'])}, c.id)::change_row
  FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
  JOIN mailboxes mb ON mb.id = cm.mailbox_id
  WHERE (mb.company_id, mb.owner_id) IN (${users})`;

/** Records and conversations linked to the updated rows of a shared table through link tables. */
const linked = (table: string, links: Array<[link: string, column: string, object: 'recording' | Channel]>) => {
  const select = links
    .map(([link, column, object]) =>
      object === 'recording'
        ? `SELECT ${recordRow('r', 'updated', parts(['details']))}
  FROM ${link} l JOIN recordings r ON r.id = l.recording_id
  WHERE (l.company_id, l.${column}) IN (SELECT company_id, id FROM new_rows)`
        : `SELECT ROW(c.company_id, '${object}', c.public_id, NULL, 'updated', ${parts(['details'])}, c.id)::change_row
  FROM ${link} l JOIN ${object}_conversations c ON c.id = l.conversation_id
  WHERE (l.company_id, l.${column}) IN (SELECT company_id, id FROM new_rows)`,
    )
    .join('\nUNION ');
  // A shared row that itself attaches another one (a mailbox its owner): its INSERT logs nothing
  // (a new row is shown by nothing yet) but takes its locks (shared-rows.ts), so that a rename
  // of the other row waits for it or is seen by it.
  const insert = SHARED_ROWS.some((s) => s.attachedBy.some((a) => a.table === table));
  return {
    table,
    ops: insert ? ['insert', 'update'] : ['update'],
    fn: byOperation(table, { ...(insert ? { INSERT: '-- Nothing to log.' } : {}), UPDATE: record(select) }),
  };
};

const SHARED_ROW_TRIGGERS = [
  {
    table: 'users',
    ops: ['insert', 'update'],
    fn: byOperation('users', {
      INSERT: noteCreated('users'),
      UPDATE: record(showingUsers('SELECT company_id, id FROM new_rows')),
    }),
  },
  {
    table: 'teams',
    ops: ['update'],
    fn: byOperation('teams', {
      UPDATE: record(
        showingUsers(
          'SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)',
        ),
      ),
    }),
  },
  {
    table: 'templates',
    ops: ['update'],
    fn: byOperation('templates', {
      UPDATE: record(`SELECT ${recordRow('r', 'updated', parts(['details']))}
  FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)`),
    }),
  },
  linked('tags', [['recording_tags', 'tag_id', 'recording']]),
  linked('competitors', [['recording_competitors', 'competitor_id', 'recording']]),
  linked('skills', [['recording_skill_scores', 'skill_id', 'recording']]),
  linked('accounts', [
    ['recording_accounts', 'account_id', 'recording'],
    ['email_conversation_accounts', 'account_id', 'email'],
    ['chat_conversation_accounts', 'account_id', 'chat'],
  ]),
  linked('mailboxes', [['email_conversation_mailboxes', 'mailbox_id', 'email']]),
];

/** A team membership shows its user (with the team) wherever the user is shown; a new user's log nothing. */
const membershipsOf = (op: 'INSERT' | 'DELETE' | 'UPDATE') =>
  record(showingUsers(touched('company_id, user_id', op, notNoted('users', 'user_id'))));

/** Template questions: the records of the template, `details` and `answers`. */
const questionsOf = (op: 'INSERT' | 'DELETE' | 'UPDATE') =>
  record(`SELECT ${recordRow('r', 'updated', parts(['details', 'answers']))}
  FROM recordings r WHERE (r.company_id, r.template_id) IN (${touched('company_id, template_id', op)})`);

// ---------------------------------------------------------------------------------------------
// Emails and chats.

const conversationRow = (channel: Channel, alias: string, action: string, changed: string) =>
  `ROW(${alias}.company_id, '${channel}', ${alias}.public_id, NULL, '${action}', ${changed}, ${alias}.id)::change_row`;

/** A conversation's `messages` part, for the conversations of `rows` (a query of `company_id, conversation_id`); nothing for one created here. */
const messagesOf = (channel: Channel, rows: string, transition: string) =>
  `SELECT ${conversationRow(channel, 'c', 'updated', parts(['messages']))}
  FROM (${rows}) t JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
  WHERE ${notCreatedHere('c', transition)}`;

const conversation = (channel: Channel) => {
  const table = `${channel}_conversations`;
  const moved = `new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id`;
  return {
    table,
    ops: ['insert', 'update', 'delete'],
    fn: byOperation(table, {
      INSERT: `${noteCreated(table)}
${createdEntries(`SELECT t.company_id, '${channel}', t.public_id, t.id, NULL, 'created', ${EPOCH} FROM new_rows t`)}`,
      DELETE: record(`SELECT ${conversationRow(channel, 't', 'deleted', `'{}'::text[]`)} FROM old_rows t`),
      UPDATE: `${idKept('conversation', '')}
${record(`SELECT ${conversationRow(channel, 'n', 'updated', parts(['details']))}
  FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id = o.company_id AND ${notNoted(table, 'n.id')}
UNION ALL SELECT ${conversationRow(channel, 'o', 'deleted', `'{}'::text[]`)} FROM ${moved}
UNION ALL SELECT ${conversationRow(channel, 'n', 'created', `'{}'::text[]`)} FROM ${moved}`)}
${backWhereItWas(moved, `'${channel}'`)}`,
    }),
  };
};

/** A conversation removed: its messages are told `deleted` now, while they are still there to name (the cascade that removes them next finds no conversation to join). */
const conversationRemoved = (channel: Channel) =>
  `CREATE OR REPLACE FUNCTION app_changes_${channel}_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM ${channel}_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ROW(m.company_id, '${channel}_message', m.public_id, OLD.public_id, 'deleted', '{}'::text[], m.id)::change_row
    FROM ${channel}_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`;

/** A part of a conversation (mailboxes, participants, accounts): the conversation, `updated` with `details`. */
const conversationPart = (table: string, channel: Channel) => {
  const select = (op: 'INSERT' | 'DELETE' | 'UPDATE', rows: string) =>
    record(`SELECT ${conversationRow(channel, 'c', 'updated', parts(['details']))}
  FROM (${touched('company_id, conversation_id', op, notNoted(`${channel}_conversations`, 'conversation_id'))}) t
  JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
  WHERE ${notCreatedHere('c', rows)}`);
  return {
    table,
    ops: ['insert', 'update', 'delete'],
    fn: byOperation(table, {
      INSERT: select('INSERT', 'new_rows'),
      DELETE: select('DELETE', 'old_rows'),
      UPDATE: select('UPDATE', 'new_rows'),
    }),
  };
};

/**
 * Where a moved message is now. A later transaction's entry for it (started after this one, it
 * wrote and committed before this move, so the move saw its row) sorts after this one's and names
 * the conversation the message was in then: a client that read it last would fetch the message
 * there, get 404 and drop a message that exists. Those entries cannot have been served yet (the
 * horizon is below this transaction), so they are made to name the conversation it is in now.
 */
const laterEntriesNameParent = (channel: Channel) => `UPDATE change_log c SET parent_id = p.public_id
  FROM new_rows n JOIN old_rows o ON o.id = n.id
    JOIN ${channel}_conversations p ON p.id = n.conversation_id AND p.company_id = n.company_id
  WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
    AND c.company_id = n.company_id AND c.object = '${channel}_message' AND c.object_key = n.id
    AND (c.epoch, c.xid) > (${EPOCH}, pg_current_xact_id()) AND c.parent_id IS DISTINCT FROM p.public_id;`;

/**
 * Messages: the message (its parent: the conversation it is in now), and its conversations'
 * `messages` when it arrives, leaves, or moves from one conversation to another (both are told).
 * A message moved to another company is deleted there and created here.
 */
const message = (channel: Channel) => {
  const table = `${channel}_messages`;
  const conversations = `${channel}_conversations`;
  const object = `${channel}_message`;
  const row = (alias: string, parent: string, action: string, changed: string) =>
    `ROW(${alias}.company_id, '${object}', ${alias}.public_id, ${parent}.public_id, '${action}', ${changed}, ${alias}.id)::change_row`;
  const parentOf = (alias: string, parent: string) =>
    `JOIN ${conversations} ${parent} ON ${parent}.id = ${alias}.conversation_id AND ${parent}.company_id = ${alias}.company_id`;
  const arrivals = (rows: string, transition: string) =>
    messagesOf(
      channel,
      `SELECT DISTINCT company_id, conversation_id FROM ${rows} WHERE ${notNoted(conversations, 'conversation_id')}`,
      transition,
    );
  const moved = `FROM new_rows n JOIN old_rows o ON o.id = n.id`;
  return {
    table,
    ops: ['insert', 'update', 'delete'],
    fn: byOperation(table, {
      INSERT: `${createdEntries(`SELECT t.company_id, '${object}', t.public_id, t.id, c.public_id, 'created', ${EPOCH}
  FROM new_rows t ${parentOf('t', 'c')}`)}
${record(arrivals('new_rows', 'new_rows'))}`,
      DELETE: record(`SELECT ${row('t', 'c', 'deleted', `'{}'::text[]`)} FROM old_rows t ${parentOf('t', 'c')}
UNION ALL ${arrivals('old_rows', 'old_rows')}`),
      UPDATE: `${idKept('message', '')}
${record(`SELECT ${row('n', 'c', 'updated', parts(['details']))}
  ${moved} ${parentOf('n', 'c')} WHERE n.company_id = o.company_id
UNION ALL SELECT ${row('o', 'c', 'deleted', `'{}'::text[]`)}
  ${moved} ${parentOf('o', 'c')} WHERE n.company_id <> o.company_id
UNION ALL SELECT ${row('n', 'c', 'created', `'{}'::text[]`)}
  ${moved} ${parentOf('n', 'c')} WHERE n.company_id <> o.company_id
UNION ALL ${messagesOf(
  channel,
  `SELECT n.company_id, n.conversation_id ${moved} WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
    UNION SELECT o.company_id, o.conversation_id ${moved} WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)`,
  'new_rows',
)}`)}
${backWhereItWas('new_rows n JOIN old_rows o ON o.id = n.id WHERE n.company_id <> o.company_id', `'${object}'`)}
${laterEntriesNameParent(channel)}`,
    }),
  };
};

// ---------------------------------------------------------------------------------------------
// The read model, emptied by the entries.

/**
 * Every entry of this transaction for a meeting or a call empties that record's document (or
 * adds an empty one); the document of a record that no longer exists goes. Entries of this
 * transaction only: compaction rewrites old entries and changes nothing shown.
 */
const DOCUMENTS = `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
    -- Locked in key order: two statements that lock many documents take them in the same order.
    ORDER BY e.object_key
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    -- A record moved to another company takes its document with it (row-level security reads it by company).
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`;

/**
 * The same for e-mail and chat conversations (conversation_documents): an entry for a
 * conversation, or for one of its messages (its parent: the conversation it is in now), empties
 * that conversation's document or adds an empty one; the document of a conversation whose row
 * is gone goes. A message that moved empties both conversations: each has its own `messages`
 * entry.
 */
const CONVERSATION_DOCUMENTS = `CREATE OR REPLACE FUNCTION app_conversation_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO conversation_documents AS d (channel, conversation_id, company_id)
    SELECT DISTINCT x.channel, x.id, x.company_id FROM (
      SELECT e.object AS channel, e.object_key AS id, e.company_id FROM entries e
        WHERE e.object IN ('email', 'chat') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
${CHANNELS.map(
  (channel) => `      UNION ALL SELECT '${channel}', c.id, c.company_id FROM entries e
        JOIN ${channel}_conversations c ON c.company_id = e.company_id AND c.public_id = e.parent_id
        WHERE e.object = '${channel}_message' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}`,
).join('\n')}
    ) x
    ORDER BY x.channel, x.id
    -- As for the recordings: locked in key order; an empty document is left as it is but locked, and a conversation
    -- moved to another company takes its document with it.
    ON CONFLICT (channel, conversation_id) DO UPDATE SET document = NULL, messages = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  DELETE FROM conversation_documents d USING entries e
    WHERE e.object IN ('email', 'chat') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
      AND d.channel = e.object AND d.conversation_id = e.object_key
${CHANNELS.map(
  (channel) => `      AND NOT (e.object = '${channel}' AND EXISTS (SELECT 1 FROM ${channel}_conversations c WHERE c.id = e.object_key))`,
).join('\n')};
  RETURN NULL;
END $$`;

// ---------------------------------------------------------------------------------------------
// Compaction.

/**
 * An object's entries older than the cutoff merge into its newest, in batches, one compactor at
 * a time. An object is its kind, row and public id: a record that changed kind and took an id of
 * its new kind, then came back, is two objects of one row (the first one's `deleted` stays). The folded action: `deleted` when any of them says so and the object is not shown now
 * (an id is never reused, so a removed object stays removed even when an older-started
 * transaction's `updated` sorts after its deletion); `created` (read it all) when one of them
 * was created or deleted and the object is shown now (a record moved back to a route); else the
 * union of the parts. The merged entry names the object's newest parent.
 */
const COMPACTION = `CREATE OR REPLACE FUNCTION app_compact_changes(cutoff timestamptz, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    merged integer;
    live integer := app_live_change_epoch();
    horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  BEGIN
    -- One compactor at a time across instances: the others skip this batch.
    IF NOT pg_try_advisory_xact_lock(hashtext('change_log compaction')) THEN RETURN -1; END IF;
    WITH objects AS (
      SELECT DISTINCT c.company_id, c.object, c.object_key, c.object_id
      FROM change_log c
      WHERE c.committed_at < cutoff AND (c.epoch, c.xid) < (live, horizon)
        AND EXISTS (SELECT 1 FROM change_log n
                    WHERE n.company_id = c.company_id AND n.object = c.object AND n.object_key = c.object_key AND n.object_id = c.object_id
                      AND (n.epoch, n.xid) > (c.epoch, c.xid) AND (n.epoch, n.xid) < (live, horizon))
      LIMIT batch
    ), survivors AS (
      SELECT DISTINCT ON (n.company_id, n.object, n.object_key, n.object_id)
        n.company_id, n.object, n.object_key, n.object_id, n.epoch, n.xid, n.seq, n.action, n.changed
      FROM objects o JOIN change_log n USING (company_id, object, object_key, object_id)
      WHERE (n.epoch, n.xid) < (live, horizon)
      ORDER BY n.company_id, n.object, n.object_key, n.object_id, n.epoch DESC, n.xid DESC, n.seq DESC
    ), removed AS (
      DELETE FROM change_log c USING survivors s
      WHERE c.company_id = s.company_id AND c.object = s.object AND c.object_key = s.object_key AND c.object_id = s.object_id
        AND (c.epoch, c.xid, c.seq) < (s.epoch, s.xid, s.seq) AND c.committed_at < cutoff
      RETURNING c.company_id, c.object, c.object_key, c.object_id, c.action, c.changed
    ), folded AS (
      SELECT company_id, object, object_key, object_id, bool_or(action = 'created') AS created, bool_or(action = 'deleted') AS deleted,
        app_changed_union('{}', array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL)) AS changed
      FROM removed LEFT JOIN LATERAL unnest(removed.changed) p ON true
      GROUP BY company_id, object, object_key, object_id
    ), judged AS (
      SELECT s.*, f.created OR s.action = 'created' AS created, f.deleted OR s.action = 'deleted' AS deleted, f.changed AS folded,
        CASE s.object
          WHEN 'email' THEN EXISTS (SELECT 1 FROM email_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat' THEN EXISTS (SELECT 1 FROM chat_conversations x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'email_message' THEN EXISTS (SELECT 1 FROM email_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          WHEN 'chat_message' THEN EXISTS (SELECT 1 FROM chat_messages x WHERE x.id = s.object_key AND x.company_id = s.company_id)
          ELSE EXISTS (SELECT 1 FROM recordings x WHERE x.id = s.object_key AND x.company_id = s.company_id AND x.kind = s.object
            AND x.public_id = s.object_id)
        END AS shown
      FROM survivors s JOIN folded f USING (company_id, object, object_key, object_id)
    )
    UPDATE change_log c SET
      action = CASE WHEN j.deleted AND NOT j.shown THEN 'deleted' WHEN j.created OR j.deleted THEN 'created' ELSE 'updated' END,
      changed = CASE WHEN j.created OR j.deleted THEN '{}'::text[] ELSE app_changed_union(j.changed, j.folded) END
    FROM judged j
    WHERE c.company_id = j.company_id AND c.object = j.object AND c.epoch = j.epoch AND c.xid = j.xid AND c.seq = j.seq;
    GET DIAGNOSTICS merged = ROW_COUNT;
    RETURN merged;
  END $$`;

// ---------------------------------------------------------------------------------------------
// Positions for instants.

/**
 * A horizon mark: at `marked_at`, every transaction of an earlier epoch, and of `epoch` below
 * `horizon`, had finished. Entries are
 * ordered by transaction id, not by commit time (`committed_at` is when the writing transaction
 * began), so "the changes committed after T" is a position, not a filter: the horizon of the
 * latest mark at or before T. A transaction that commits after T cannot be below it (it would
 * have finished by the mark), so reading from there yields every change committed after T, at
 * least once (and some committed between the mark and T). Marks are taken by the service every
 * minute; past a day one an hour is kept.
 */
const HORIZON_MARK = `CREATE OR REPLACE FUNCTION app_mark_change_horizon() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    -- The snapshot is taken before clock_timestamp() is read: the mark never claims more than it knows.
    INSERT INTO change_horizons (marked_at, epoch, horizon)
      VALUES (clock_timestamp(), app_record_change_epoch(), pg_snapshot_xmin(pg_current_snapshot()))
      ON CONFLICT (marked_at) DO NOTHING;
    DELETE FROM change_horizons h
      WHERE h.marked_at < clock_timestamp() - interval '1 day'
        AND EXISTS (SELECT 1 FROM change_horizons k
                    WHERE k.marked_at >= date_trunc('hour', h.marked_at) AND k.marked_at < h.marked_at);
  END $$`;

// ---------------------------------------------------------------------------------------------
// Everything, in the order it is installed.

interface CapturedTable {
  table: string;
  /** The statement-level triggers it has, `<table>_changes_<op>`. */
  ops: string[];
  fn: string;
}

/** Every captured table, with its trigger function and the operations it is fired for. */
export const CAPTURED_TABLES: CapturedTable[] = [
  {
    table: 'recordings',
    ops: ['insert', 'update', 'delete'],
    fn: RECORDINGS,
  },
  recordPart('transcripts', ['details', 'transcript']),
  recordPart('recording_evaluations', ['details', 'evaluation']),
  recordPart('recording_answers', ['details', 'answers']),
  ...[
    'recording_tags',
    'recording_competitors',
    'recording_accounts',
    'recording_enablements',
    'recording_speaking_durations',
    'recording_skill_scores',
  ].map((t) => recordPart(t, ['details'])),
  {
    table: 'template_questions',
    ops: ['insert', 'update', 'delete'],
    fn: byOperation('template_questions', {
      INSERT: questionsOf('INSERT'),
      DELETE: questionsOf('DELETE'),
      UPDATE: questionsOf('UPDATE'),
    }),
  },
  {
    table: 'team_memberships',
    ops: ['insert', 'update', 'delete'],
    fn: byOperation('team_memberships', {
      INSERT: membershipsOf('INSERT'),
      DELETE: membershipsOf('DELETE'),
      UPDATE: membershipsOf('UPDATE'),
    }),
  },
  ...SHARED_ROW_TRIGGERS,
  ...CHANNELS.flatMap((channel) => [
    conversation(channel),
    ...(channel === 'email'
      ? ['email_conversation_mailboxes', 'email_participants', 'email_conversation_accounts'].map((t) => conversationPart(t, 'email'))
      : [conversationPart('chat_conversation_accounts', 'chat')]),
    message(channel),
  ]),
];

/** A trigger: its name, table and definition. */
export interface CaptureTrigger {
  table: string;
  name: string;
  sql: string;
}

const statementTrigger = (table: string, op: string): CaptureTrigger => {
  const name = `${table}_changes_${op}`;
  const transition = {
    insert: 'NEW TABLE AS new_rows',
    update: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    delete: 'OLD TABLE AS old_rows',
  }[op];
  return {
    table,
    name,
    sql: `CREATE OR REPLACE TRIGGER ${name} AFTER ${op.toUpperCase()} ON ${table} REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION app_changes_${table}()`,
  };
};

/** Every capture trigger, each ENABLE ALWAYS (they fire for replication and `session_replication_role = replica` writers too). */
export const CAPTURE_TRIGGERS: CaptureTrigger[] = [
  ...CAPTURED_TABLES.flatMap(({ table, ops }) => ops.map((op) => statementTrigger(table, op))),
  ...CAPTURED_TABLES.map(({ table }) => ({
    table,
    name: `${table}_refuse_truncate`,
    sql: `CREATE OR REPLACE TRIGGER ${table}_refuse_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION app_refuse_truncate()`,
  })),
  ...CHANNELS.map((channel) => ({
    table: `${channel}_conversations`,
    name: `${channel}_conversations_messages_removed`,
    sql: `CREATE OR REPLACE TRIGGER ${channel}_conversations_messages_removed BEFORE DELETE ON ${channel}_conversations FOR EACH ROW EXECUTE FUNCTION app_changes_${channel}_conversation_removed()`,
  })),
  {
    table: 'recordings',
    name: 'recordings_touch',
    sql: 'CREATE OR REPLACE TRIGGER recordings_touch BEFORE UPDATE ON recordings FOR EACH ROW EXECUTE FUNCTION app_touch_recording()',
  },
  {
    table: 'change_log',
    name: 'change_log_documents_insert',
    sql: 'CREATE OR REPLACE TRIGGER change_log_documents_insert AFTER INSERT ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale()',
  },
  ...['insert', 'update'].map((op) => ({
    table: 'change_log',
    name: `change_log_conversation_documents_${op}`,
    sql: `CREATE OR REPLACE TRIGGER change_log_conversation_documents_${op} AFTER ${op.toUpperCase()} ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_conversation_documents_stale()`,
  })),
  {
    table: 'change_log',
    name: 'change_log_documents_update',
    sql: 'CREATE OR REPLACE TRIGGER change_log_documents_update AFTER UPDATE ON change_log REFERENCING NEW TABLE AS entries FOR EACH STATEMENT EXECUTE FUNCTION app_recording_documents_stale()',
  },
];

/** Every capture function, `CREATE OR REPLACE`, in the order they are installed. */
export const CAPTURE_FUNCTIONS: string[] = [
  ...SHARED,
  ...CAPTURED_TABLES.map(({ fn }) => fn),
  ...CHANNELS.map(conversationRemoved),
  DOCUMENTS,
  CONVERSATION_DOCUMENTS,
  COMPACTION,
  HORIZON_MARK,
];

/** The name of the function a `CREATE OR REPLACE FUNCTION` statement defines. */
export function functionName(sql: string): string {
  const match = /^CREATE OR REPLACE FUNCTION (\w+)\(/.exec(sql);
  if (!match) throw new Error(`not a function definition: ${sql.slice(0, 60)}`);
  return match[1];
}

/** The body of a function definition (between its dollar quotes), as PostgreSQL keeps it in `pg_proc.prosrc`. */
export function functionBody(sql: string): string {
  const start = sql.indexOf('$$');
  const end = sql.lastIndexOf('$$');
  return sql.slice(start + 2, end);
}

/** Everything rendered, as `capture.sql` holds it. */
export function renderCaptureSql(): string {
  const header = [
    '-- Change capture as it runs today, rendered from src/changes/capture-sql.ts by `npm run capture:render`.',
    '-- Do not edit: edit capture-sql.ts, render, and add a migration that installs the new text.',
    '',
  ];
  const functions = CAPTURE_FUNCTIONS.map((sql) => `${sql};\n`);
  const triggers = CAPTURE_TRIGGERS.map((t) => `${t.sql};\nALTER TABLE ${t.table} ENABLE ALWAYS TRIGGER ${t.name};\n`);
  return [...header, '-- Functions', '', ...functions, '-- Triggers', '', ...triggers].join('\n');
}
