import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  arrivals,
  Capture,
  CAPTURE,
  captureFunctionOf,
  COMPACT_CHANGES,
  compactChanges,
  recordChangesFunction,
  triggerStatementsOf,
} from './1764800000000-change-feed';

/**
 * Change capture at a cost a bulk writer hardly notices (`seed:volume` of 1,000,000 meetings
 * took 1.42× its time without the triggers). Measured with `pg_stat_statements` tracking the
 * triggers' statements, the cost had three parts, and each is cut here without changing an
 * entry the feed serves:
 *
 * 1. **Shared rows nothing references yet.** An INSERT into users, teams, templates, tags,
 *    competitors, skills, accounts or mailboxes looked for the records that show the new row
 *    (through link tables without an index on the shared side: a sequential scan per
 *    statement, 70 ms per account on a database of 600,000 meetings, seconds on a big one). A
 *    new row is shown by nothing: every object reaches these rows through a foreign key from a
 *    captured table (the catalog test checks it), so it starts showing one when that row is
 *    written, which its own trigger logs. A DELETE either cascades to such rows (logged by their
 *    triggers), sets their references to null (an update, logged) or is refused. These tables
 *    keep only their UPDATE trigger.
 * 2. **The parts of an object created in the same transaction.** Its `created` entry says "read
 *    it all", so its parts log nothing. The part triggers found that out per part table and
 *    record by joining the record and looking it up among the transaction's `created` entries.
 *    Now the insert trigger of recordings and conversations notes the ids it created, as an
 *    `int8multirange` (one range for a bulk insert) in a transaction-local setting, and the part
 *    triggers drop those rows from the transition table before any join. The previous check
 *    stays behind it for what the note cannot know (a part written in the same statement as
 *    its record, when the part's trigger happens to fire first). The note only ever skips work
 *    the `created` entry already covers; it is local to the transaction and carries its id, so
 *    nothing outlives it. (A writer that forged it could hide its own part changes; writers
 *    are trusted with the data itself anyway.)
 * 3. **The `created` entries themselves.** They were built into an array, unnested, grouped
 *    and merged; an insert's are now written straight from the transition table.
 * 4. **The log's indexes.** It kept two for an object's entries, `(company_id, xid, object,
 *    object_id)` for the merge and `(company_id, object, object_id, xid, seq)` for compaction;
 *    the second is keyed by random public ids, so every entry dirtied a random page of an index
 *    that outgrows the cache (measured: about a tenth of the seed's time). Entries now carry
 *    `object_key`, the id of the object's row (monotonic for new rows), and one unique index
 *    `(company_id, object, object_key, xid)` serves both, appended at its right edge by a bulk
 *    insert. Existing entries get their row's id; those of objects already removed get a
 *    negative key of their own (one per object), so compaction still tells them apart.
 *
 * The backfill and the index read and rewrite the whole log once, in the migration's transaction,
 * holding an exclusive lock on `change_log` until it commits: feed reads, the webhook dispatcher
 * and every logged write wait for it (3 minutes for 2.4 million entries in a lab cluster). Run it
 * before the rollout, like every migration, in a window sized to the log.
 *
 * Later migrations that replace a capture build its function with `leanFunctionOf` (rows of
 * seven fields); `captureFunctionOf` alone builds the six-field rows of the first definition.
 */
export class LeanChangeCapture1765100000000 implements MigrationInterface {
  name = 'LeanChangeCapture1765100000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of [
      `ALTER TABLE change_log ADD COLUMN object_key bigint`,
      ...KEY_BACKFILL,
      `ALTER TABLE change_log ALTER COLUMN object_key SET NOT NULL`,
      `ALTER TYPE change_row ADD ATTRIBUTE object_key bigint`,
      `CREATE UNIQUE INDEX change_log_object_transaction_key ON change_log (company_id, object, object_key, xid)`,
      `ALTER TABLE change_log ADD CONSTRAINT change_log_object_transaction_key UNIQUE USING INDEX change_log_object_transaction_key`,
      recordChangesFunction('CREATE OR REPLACE', 'change_log_object_transaction_key', 'object_key'),
      compactChanges('object_key'),
      `ALTER TABLE change_log DROP CONSTRAINT change_log_transaction_object_key`,
      `DROP INDEX change_log_object_idx`,
      ...NOTES,
      ...LEAN_CAPTURE.map(leanFunctionOf),
      ...DROPPED_TRIGGERS.map(({ table, name }) => `DROP TRIGGER ${name} ON ${table}`),
    ])
      await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    const dropped = (sql: string) => DROPPED_TRIGGERS.some(({ name }) => sql.startsWith(`CREATE TRIGGER ${name} `));
    for (const sql of [
      ...CAPTURE.flatMap(triggerStatementsOf).filter(dropped),
      ...CAPTURE.map(captureFunctionOf),
      `DROP FUNCTION app_note_created(text, int8multirange)`,
      `DROP FUNCTION app_created_ids(text)`,
      `CREATE INDEX change_log_object_idx ON change_log (company_id, object, object_id, xid, seq)`,
      `ALTER TABLE change_log ADD CONSTRAINT change_log_transaction_object_key UNIQUE (company_id, xid, object, object_id)`,
      recordChangesFunction('CREATE OR REPLACE', 'change_log_transaction_object_key'),
      COMPACT_CHANGES,
      `ALTER TABLE change_log DROP CONSTRAINT change_log_object_transaction_key`,
      `ALTER TYPE change_row DROP ATTRIBUTE object_key`,
      `ALTER TABLE change_log DROP COLUMN object_key`,
    ])
      await q.query(sql);
  }
}

/**
 * Shared rows shown only through a foreign key from a captured table: their inserts and deletes
 * log nothing themselves. (Users keep an insert trigger that only notes their ids: a new user's
 * team memberships change nothing an entry of this transaction does not already cover, and
 * finding the records that show a user scans tables that have no index by user.)
 */
export const REFERENCED_ONLY = ['users', 'teams', 'templates', 'tags', 'competitors', 'skills', 'accounts', 'mailboxes'];

/**
 * The ids a transaction created in a table, noted by the table's insert trigger in the setting
 * `app.created_<table>` as `<xid>:<int8multirange>` (local to the transaction), and read back by
 * the triggers of the table's parts.
 */
const NOTES = [
  `CREATE FUNCTION app_created_ids(tbl text) RETURNS int8multirange LANGUAGE plpgsql STABLE AS $$
  DECLARE
    mine text := pg_current_xact_id()::text || ':';
    noted text := current_setting('app.created_' || tbl, true);
  BEGIN
    IF starts_with(noted, mine) THEN RETURN substr(noted, length(mine) + 1)::int8multirange; END IF;
    RETURN '{}'::int8multirange;
  END $$`,
  `CREATE FUNCTION app_note_created(tbl text, ids int8multirange) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF ids IS NULL OR isempty(ids) THEN RETURN; END IF;
    PERFORM set_config('app.created_' || tbl, pg_current_xact_id()::text || ':' || (ids + app_created_ids(tbl))::text, true);
  END $$`,
];

/** Transition-table rows whose `column` is not the id of a row of `table` this transaction created. */
const notNoted = (table: string, column: string) => `NOT ${column} <@ (SELECT app_created_ids('${table}'))`;

/**
 * The id of each entry's object row, for the entries already logged: the row's id where it still
 * exists, else (an object removed) a negative key of its own.
 */
export const KEY_BACKFILL = [
  ...[
    [`object IN ('meeting', 'call')`, 'recordings'],
    [`object = 'email'`, 'email_conversations'],
    [`object = 'email_message'`, 'email_messages'],
    [`object = 'chat'`, 'chat_conversations'],
    [`object = 'chat_message'`, 'chat_messages'],
  ].map(
    ([objects, table]) => `UPDATE change_log c SET object_key = o.id FROM ${table} o
      WHERE c.object_key IS NULL AND c.${objects} AND o.company_id = c.company_id AND o.public_id = c.object_id`,
  ),
  `UPDATE change_log c SET object_key = -g.n
    FROM (SELECT company_id, object, object_id, row_number() OVER (ORDER BY company_id, object, object_id) AS n
          FROM (SELECT DISTINCT company_id, object, object_id FROM change_log WHERE object_key IS NULL) removed) g
    WHERE c.object_key IS NULL AND c.company_id = g.company_id AND c.object = g.object AND c.object_id = g.object_id`,
];

/**
 * A capture's trigger function, each `change_row` carrying its object's row id: every capture
 * builds its rows as `ROW(<alias>.company_id, …)::change_row` from the object's own row (a
 * record, a conversation, a message), whose `id` is the key.
 */
export function leanFunctionOf(c: Capture): string {
  return captureFunctionOf(c).replace(
    /ROW\((\w+)\.company_id,([\s\S]*?)\)::change_row/g,
    (_row, alias: string, rest: string) => `ROW(${alias}.company_id,${rest}, ${alias}.id)::change_row`,
  );
}

/** `created` entries written straight from `select` (company_id, object, object_id, object_key, parent_id, 'created'). */
const createdEntries = (
  select: string,
) => `INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action) ${select}
        ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}'
        WHERE c.action <> 'deleted';`;

/** Notes the ids of the inserted rows of `table`. */
const noteCreated = (table: string) => `PERFORM app_note_created('${table}', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));`;

/** What an INSERT into an object's table runs: its `created` entries, straight from the transition table. */
const INSERTED: Record<string, string> = {
  users: noteCreated('users'),
  recordings: `${noteCreated('recordings')}
        ${createdEntries(`SELECT t.company_id, t.kind, t.public_id, t.id, NULL, 'created' FROM new_rows t`)}`,
  ...Object.fromEntries(
    (['email', 'chat'] as const).flatMap((channel) => [
      [
        `${channel}_conversations`,
        `${noteCreated(`${channel}_conversations`)}
        ${createdEntries(`SELECT t.company_id, '${channel}', t.public_id, t.id, NULL, 'created' FROM new_rows t`)}`,
      ],
      [
        `${channel}_messages`,
        `${createdEntries(`SELECT t.company_id, '${channel}_message', t.public_id, t.id, c.public_id, 'created'
          FROM new_rows t JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id`)}
        PERFORM app_record_changes(ARRAY(${arrivals(channel, 'new_rows', 'created', notNoted(`${channel}_conversations`, 'conversation_id'))}));`,
      ],
    ]),
  ),
};

/** Every captured table's capture as this migration leaves it: parts skip what the notes cover, inserts of objects write their entries directly. */
export const LEAN_CAPTURE: Capture[] = CAPTURE.map((first) => {
  const lean = first.skipping?.(notNoted) ?? first;
  return first.table in INSERTED ? { ...lean, inserted: INSERTED[first.table] } : lean;
});

/** The triggers this migration drops: the delete trigger of each referenced-only table, and its insert trigger unless it notes ids. */
const DROPPED_TRIGGERS = REFERENCED_ONLY.flatMap((table) =>
  [...(table in INSERTED ? [] : ['insert']), 'delete'].map((op) => ({ table, name: `${table}_changes_${op}` })),
);
