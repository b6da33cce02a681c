/**
 * The pieces the capture's trigger functions are built of (capture-sql.ts lists them): an object
 * of the feed as a `change_row`, the statement that records them, a trigger function by
 * operation, and the shapes that recur, an object's own table, a part of an object, a row that
 * moved from one route to another.
 */
import { OLD_AND_NEW, Op, touched } from './capture-transition-rows';
import { sharedRowLocks } from './shared-rows';

export type Channel = 'email' | 'chat';
export const CHANNELS: Channel[] = ['email', 'chat'];

/** A captured table: its trigger function and the statement-level triggers it has, `<table>_changes_<op>`. */
export interface CapturedTable {
  table: string;
  ops: string[];
  fn: string;
}

/** This server life's epoch, once per statement (see app_change_epoch). */
export const EPOCH = '(SELECT app_change_epoch())';

/** The parts of a `created` or `deleted` entry: none (read it all, or drop it). */
export const NOTHING = `'{}'::text[]`;

/** `ARRAY['a', 'b']::text[]`. */
export const parts = (names: string[]) => `ARRAY[${names.map((p) => `'${p}'`).join(', ')}]::text[]`;

/** Rows of `rows` whose `column` is not the id of a row of `table` this transaction created. */
export const notNoted = (table: string, column: string) => `NOT ${column} <@ (SELECT app_created_ids('${table}'))`;

/**
 * Objects of `alias` not created in this transaction: the check behind the notes, for a part
 * whose trigger fires before its object's in the same statement.
 */
export const notCreatedHere = (alias: string, rows: string) =>
  `NOT (${alias}.xmin = app_current_xid() AND (SELECT app_created_here(ARRAY(SELECT DISTINCT company_id FROM ${rows}))) ? ${alias}.public_id)`;

/** The statement that writes `change_row`s. */
export const record = (select: string) => `PERFORM app_record_changes(ARRAY(${select}));`;

/**
 * The row of `alias` as an object of the feed, a `change_row`: company, object type (`type`, an
 * SQL expression), public id, parent (the public id of the row `parent` names, else none), action,
 * parts, and the row's id (`object_key`). Seven fields since 1765100000000-lean-change-capture,
 * whose comment names the builders of its day, `leanFunctionOf` (these seven) and
 * `captureFunctionOf` (the six of 1764800000000-change-feed, before `object_key`): both are gone,
 * and every row is built here.
 */
export const objectRow = (alias: string, type: string, action: string, changed: string, parent?: string) =>
  `ROW(${alias}.company_id, ${type}, ${alias}.public_id, ${parent ? `${parent}.public_id` : 'NULL'}, '${action}', ${changed}, ${alias}.id)::change_row`;

/**
 * The trigger function of `table`, `app_changes_<table>`: for each of INSERT, DELETE and UPDATE
 * it is fired for, first the locks of the shared rows the statement attaches or re-shows
 * (shared-rows.ts), then `body(op)`.
 */
export const byOperation = (table: string, body: Partial<Record<Op, string>>) => {
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

/** The capture of `table`: its trigger function (byOperation), and a trigger for each operation `body` has a statement for. */
export const captured = (table: string, body: Partial<Record<Op, string>>): CapturedTable => ({
  table,
  ops: (['insert', 'update', 'delete'] as const).filter((op) => body[op.toUpperCase() as Op] !== undefined),
  fn: byOperation(table, body),
});

/** Captured on INSERT, UPDATE and DELETE, each operation's statement built alike from the operation and the rows it wrote (an UPDATE's: its new rows). */
export const eachOperation = (table: string, statement: (op: Op, rows: string) => string): CapturedTable =>
  captured(table, {
    INSERT: statement('INSERT', 'new_rows'),
    DELETE: statement('DELETE', 'old_rows'),
    UPDATE: statement('UPDATE', 'new_rows'),
  });

/** `created` entries straight from an insert's transition table (no array, no merge work). */
export const createdEntries = (
  select: string,
) => `INSERT INTO change_log AS c (company_id, object, object_id, object_key, parent_id, action, epoch)
  ${select.trim().replace(/\n/g, '\n  ')}
ON CONFLICT ON CONSTRAINT change_log_object_transaction_key DO UPDATE SET action = 'created', changed = '{}', parent_id = EXCLUDED.parent_id;`;

/** Notes the ids an insert created (app_note_created), so that the triggers of their parts skip them. */
export const noteCreated = (table: string) =>
  `PERFORM app_note_created('${table}', (SELECT range_agg(int8range(id, id, '[]')) FROM new_rows));`;

/** An object of the feed with parts of its own: its table, the column its parts point at it by, its alias there, its type as an SQL expression. */
export interface FeedObject {
  table: string;
  column: string;
  alias: string;
  type: (alias: string) => string;
}

/** Meetings and calls: a record's kind is its object type. */
export const RECORD: FeedObject = { table: 'recordings', column: 'recording_id', alias: 'r', type: (alias) => `${alias}.kind` };

export const conversationOf = (channel: Channel): FeedObject => ({
  table: `${channel}_conversations`,
  column: 'conversation_id',
  alias: 'c',
  type: () => `'${channel}'`,
});

/**
 * The trigger of an object's own table: an insert notes its ids and writes `created` entries, a
 * delete `deleted` ones, an update `update`.
 */
export const objectTable = (object: FeedObject, update: string): CapturedTable =>
  captured(object.table, {
    INSERT: `${noteCreated(object.table)}
${createdEntries(`SELECT t.company_id, ${object.type('t')}, t.public_id, t.id, NULL, 'created', ${EPOCH} FROM new_rows t`)}`,
    DELETE: record(`SELECT ${objectRow('t', object.type('t'), 'deleted', NOTHING)} FROM old_rows t`),
    UPDATE: update,
  });

/**
 * A part of an object (a record's transcript or tags, a conversation's participants): the object,
 * `updated` with `changed`, nothing for an object created in this transaction.
 */
export const objectPart = (table: string, object: FeedObject, changed: string[]): CapturedTable => {
  const { alias: a, column } = object;
  return eachOperation(table, (op, rows) =>
    record(`SELECT ${objectRow(a, object.type(a), 'updated', parts(changed))}
  FROM (${touched(`company_id, ${column}`, op, notNoted(object.table, column))}) t
  JOIN ${object.table} ${a} ON ${a}.id = t.${column} AND ${a}.company_id = t.company_id
  WHERE ${notCreatedHere(a, rows)}`),
  );
};

/** The updated rows that moved to another company. */
export const COMPANY_CHANGED = `${OLD_AND_NEW} WHERE n.company_id <> o.company_id`;

/**
 * Back where it was: an object that joins a route (a record made a meeting again, a conversation
 * or a message moved back to a company) may have a later transaction's entry there saying it
 * left. That entry cannot have been served yet (the horizon is below this transaction) and would
 * sort after this one's `created`: it becomes a re-read, which a fetch answers with the truth.
 * `moved`: the transition rows (`n`) that joined a route; `object`: the object type of `n` there.
 *
 * It finds that entry by row (`object_key`), not by public id. For a conversation or a message the
 * two agree (their id never changes). A record's id changes with its kind, so an entry of an
 * earlier id of the same kind and row is matched too: a `deleted` for an id the record no longer
 * has is made a re-read of it, which a fetch answers with 404 (matching `object_id = n.public_id`
 * would leave it `deleted`). Left as it is: a change here is a change of the installed capture.
 */
export const backWhereItWas = (
  moved: string,
  object: string,
) => `UPDATE change_log c SET action = 'updated', changed = ${parts(['details'])}
  FROM ${moved}
    AND c.company_id = n.company_id AND c.object = ${object} AND c.object_key = n.id
    AND (c.epoch, c.xid) > (${EPOCH}, pg_current_xact_id()) AND c.action = 'deleted';`;

/**
 * An object that left a route (another kind or company) or joined one: deleted where it was,
 * created where it is (`rows`, selects to follow an updated one's), and back where it was
 * (`back`). `moved`: its transition rows, new `n` beside old `o`.
 */
export const movedObjects = (object: FeedObject, moved: string) => ({
  rows: `UNION ALL SELECT ${objectRow('o', object.type('o'), 'deleted', NOTHING)} FROM ${moved}
UNION ALL SELECT ${objectRow('n', object.type('n'), 'created', NOTHING)} FROM ${moved}`,
  back: backWhereItWas(moved, object.type('n')),
});

/**
 * An object's id never changes, but a record's with its kind (the id carries the kind's
 * prefix): an entry would name the new id, and no client would be told the old one is gone.
 * `kept`: the condition of the transition rows that keep their route (kind or company).
 */
export const idKept = (what: string, kept: string) => `IF EXISTS (SELECT 1 FROM ${OLD_AND_NEW} WHERE n.public_id <> o.public_id${kept}) THEN
  RAISE EXCEPTION 'the id of a % does not change%', '${what}', ${what === 'record' ? `' but with its kind'` : `''`}
    USING ERRCODE = 'feature_not_supported', HINT = 'Delete it and insert it anew under the new id.';
END IF;`;
