/**
 * Change capture as it runs today: every function and trigger that turns a write to a tenant
 * table into entries of `change_log`, in one place. Migrations are history and hold the literal
 * SQL they ran; these files are the present. This one lists everything in the order it is
 * installed; its siblings build it, by reason: capture-shared-functions.ts (what no one table
 * owns: epochs, the one entry per object and transaction, compaction, horizon marks),
 * capture-recordings.ts, capture-shared-rows.ts, capture-conversations.ts (e-mails and chats)
 * and capture-read-model.ts, from the pieces of capture-builders.ts. `capture.sql` beside them
 * is all of it rendered (a unit test keeps the two equal), so a reviewer reads the SQL that runs,
 * and a medium spec proves that a migrated database runs exactly this. To change capture: edit
 * them, then `npm run capture:render -- --migration Name`, which renders capture.sql and writes a
 * migration holding only what changed (transition() in render-capture-sql.ts says how).
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
 * - The read model (`recording_documents`, `conversation_documents`) is emptied by the entries
 *   themselves, in the writing transaction, so a served document is never older than the tables.
 */

import { CapturedTable, CHANNELS } from './capture-builders';
import { conversationRemoved, conversationTables } from './capture-conversations';
import { CONVERSATION_DOCUMENTS, DOCUMENTS } from './capture-read-model';
import { RECORDING_TABLES } from './capture-recordings';
import { SHARED_ROW_TABLES } from './capture-shared-rows';
import { COMPACTION, HORIZON_MARK, SHARED_FUNCTIONS } from './capture-shared-functions';

/**
 * Shared rows shown only through a foreign key from a captured table: a new one is shown by
 * nothing yet, and a delete cascades to captured rows, sets their references to null (an update,
 * captured) or is refused. They keep their UPDATE trigger only (users also note their inserted
 * ids: a new user's team memberships change nothing a `created` entry does not already cover;
 * a new mailbox logs nothing but locks its owner, which it attaches: shared-rows.ts).
 */
export const REFERENCED_ONLY = ['users', 'teams', 'templates', 'tags', 'competitors', 'skills', 'accounts', 'mailboxes'];

/** Every captured table, with its trigger function and the operations it is fired for. */
export const CAPTURED_TABLES: CapturedTable[] = [...RECORDING_TABLES, ...SHARED_ROW_TABLES, ...CHANNELS.flatMap(conversationTables)];

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
  ...SHARED_FUNCTIONS,
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
